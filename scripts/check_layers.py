#!/usr/bin/env python3
"""Checks the direction of dependencies in src/: no import circles between modules, and every room
uses only rooms below it (domain <- store, providers and the archive <- notification channels <- ledger <- http
and console <- app).

It reads every `use` statement and every `crate::`, `super::` and `self::` path in the code (comments
are skipped), resolves each to the deepest module file it names, and builds the graph of module
files. A module may use its own ancestors (a parent module holds what its children share), so those
edges are left out. Exits 1, naming each offending import, when a rule is broken.
"""

import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

# The rooms, lowest first. A module belongs to the longest prefix listed; it may use its own room and
# rooms of a lower rank, never a room of its own rank or above.
ROOMS = {
    "crate::domain": 0,
    "crate::server::clock": 0,
    "crate::server::egress": 0,
    "crate::server::telemetry": 0,
    "crate::server::metrics": 0,
    "crate::server::store": 1,
    "crate::server::providers": 1,
    "crate::server::archive": 1,
    "crate::server::notify": 2,
    "crate::server::ledger": 3,
    "crate::server::sandbox": 3,
    "crate::server::http": 4,
    "crate::server::demo": 4,
    "crate::console": 5,
    "crate::ui": 6,
    "crate::app": 7,
    "crate::server::app": 8,
    "crate::server": 8,
    "crate": 8,
}


def module_of(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return "::".join(["crate", *parts])


def room_of(module: str) -> str:
    return max((room for room in ROOMS if module == room or module.startswith(room + "::")), key=len)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    return re.sub(r"//[^\n]*", "", text)


def expand_use_tree(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e]."""
    tree = tree.strip()
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"\s+as\s+\w+$", "", tree).strip()]
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rindex("}")]
    items, depth, current = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            items.append(current)
            current = ""
            continue
        depth += char == "{"
        depth -= char == "}"
        current += char
    items.append(current)
    paths = []
    for item in filter(str.strip, items):
        for path in expand_use_tree(item):
            paths.append(prefix + path if path != "self" else prefix.rstrip(":"))
    return paths


def referenced_paths(text: str) -> list:
    code = strip_comments(text).replace("$crate", "crate")
    paths = []
    for statement in re.findall(r"\buse\s+([^;]+);", code):
        paths.extend(expand_use_tree(statement))
    code_without_uses = re.sub(r"\buse\s+[^;]+;", "", code)
    paths.extend(re.findall(r"\b(?:crate|super|self)(?:::\w+)+", code_without_uses))
    return paths


def resolve(path: str, here: str, modules: set):
    segments = [s for s in path.split("::") if s]
    if not segments:
        return None
    if segments[0] == "crate":
        base, rest = ["crate"], segments[1:]
    elif segments[0] in ("super", "self"):
        base = here.split("::")
        while segments and segments[0] in ("super", "self"):
            if segments.pop(0) == "super":
                base = base[:-1]
        rest = segments
    else:
        return None
    target = "::".join(base)
    for segment in rest:
        deeper = f"{target}::{segment}"
        if deeper not in modules:
            break
        target = deeper
    return target


def circles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def main() -> int:
    files = {module_of(p): p for p in sorted(SRC.rglob("*.rs")) if p.name != "main.rs"}
    modules = set(files)
    graph, upward, imports = {}, [], 0
    for module, path in files.items():
        for raw in referenced_paths(path.read_text()):
            target = resolve(raw, module, modules)
            if target is None or target == module or module.startswith(target + "::"):
                continue
            imports += 1
            graph.setdefault(module, set()).add(target)
            source_room, target_room = room_of(module), room_of(target)
            if source_room != target_room and ROOMS[target_room] >= ROOMS[source_room]:
                upward.append(f"{path.relative_to(SRC.parent)}: {module} uses {raw} ({source_room} may not use {target_room})")
    found = circles(graph)
    for line in sorted(set(upward)):
        print(f"upward: {line}")
    for component in found:
        print("circle: " + " <-> ".join(component))
    print(f"layers: {len(modules)} modules, {imports} imports; {len(set(upward))} upward, {len(found)} circles")
    return 1 if upward or found else 0


if __name__ == "__main__":
    sys.exit(main())
