//! The locale files against each other and against the code: every file parses, every language
//! has exactly the keys of English with exactly its placeables, every key the code asks for with
//! `t!` exists with the argument names the code passes, and every key is asked for somewhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fluent_syntax::ast::Entry;

use super::page_words::placeables_of_pattern;
use super::Language;

type Placeables = BTreeSet<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every message of a language's folder with the placeables it uses; panics on a file that does
/// not parse or a key defined twice.
fn messages(language: Language) -> BTreeMap<String, Placeables> {
    let folder = root().join("locales").join(language.tag());
    let mut messages = BTreeMap::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ftl"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let resource = fluent_syntax::parser::parse(text.as_str())
            .unwrap_or_else(|(_, errors)| panic!("{} does not parse: {errors:?}", file.display()));
        for entry in &resource.body {
            match entry {
                Entry::Message(message) => {
                    let mut placeables = Placeables::new();
                    let value = message
                        .value
                        .as_ref()
                        .unwrap_or_else(|| panic!("{}: {} has no value", file.display(), message.id.name));
                    placeables_of_pattern(value, &mut placeables);
                    let before = messages.insert(message.id.name.to_owned(), placeables);
                    assert!(before.is_none(), "{}: {} is defined twice", file.display(), message.id.name);
                }
                Entry::Junk { content } => panic!("{}: cannot read {content:?}", file.display()),
                _ => {}
            }
        }
    }
    messages
}

/// A `t!(language, "key", name = value, …)` call found in the code.
#[derive(Debug)]
struct Call {
    place: String,
    key: String,
    names: Placeables,
}

/// The arguments of a macro call starting right after its `(`, split at the commas outside
/// brackets and strings, up to the closing `)`.
fn arguments(text: &str) -> Vec<String> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut parts, mut current) = (Vec::new(), String::new());
    for c in text.chars() {
        if in_string {
            current.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                current.push(c);
            }
            '(' | '[' | '{' => {
                depth += 1;
                current.push(c);
            }
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => {
                depth -= 1;
                current.push(c);
            }
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts.into_iter().map(|part| part.trim().to_owned()).filter(|part| !part.is_empty()).collect()
}

fn calls_in(file: &Path, into: &mut Vec<Call>) {
    let text = std::fs::read_to_string(file).unwrap();
    for (start, _) in text.match_indices("t!(") {
        let before = text[..start].chars().next_back();
        let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
        let in_comment = text[line_start..start].contains("//");
        if in_comment || before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '"') {
            continue;
        }
        let line = text[..start].lines().count();
        let place = format!("{}:{line}", file.strip_prefix(root()).unwrap().display());
        let parts = arguments(&text[start + 3..]);
        let key = parts.get(1).and_then(|key| key.strip_prefix('"')?.strip_suffix('"'));
        let Some(key) = key else {
            panic!("{place}: the key of a t! call must be a string literal: {parts:?}");
        };
        let names = parts[2..]
            .iter()
            .map(|part| part.split_once('=').map_or(part.as_str(), |(name, _)| name).trim().to_owned())
            .collect();
        into.push(Call { place, key: key.to_owned(), names });
    }
}

fn rust_files(folder: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

fn calls() -> Vec<Call> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut calls = Vec::new();
    for file in files {
        calls_in(&file, &mut calls);
    }
    assert!(calls.len() > 50, "the scan found too few t! calls to be reading the code: {}", calls.len());
    calls
}

#[test]
fn every_language_has_every_key_with_the_same_placeables() {
    let english = messages(Language::En);
    assert!(!english.is_empty());
    for language in [Language::ZhTw, Language::ZhCn] {
        let translated = messages(language);
        let missing: Vec<&String> = english.keys().filter(|key| !translated.contains_key(*key)).collect();
        let extra: Vec<&String> = translated.keys().filter(|key| !english.contains_key(*key)).collect();
        assert!(missing.is_empty(), "{language} lacks {missing:?}");
        assert!(extra.is_empty(), "{language} has keys English does not: {extra:?}");
        for (key, placeables) in &english {
            assert_eq!(
                &translated[key], placeables,
                "{language}'s {key} must use exactly the placeables of English"
            );
        }
    }
}

#[test]
fn every_key_the_code_asks_for_exists_with_the_names_it_passes() {
    let english = messages(Language::En);
    let mut problems = Vec::new();
    for call in calls() {
        match english.get(&call.key) {
            None => problems.push(format!("{}: no message {}", call.place, call.key)),
            Some(placeables) if *placeables != call.names => problems.push(format!(
                "{}: {} uses {placeables:?} but the code passes {:?}",
                call.place, call.key, call.names
            )),
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_key_is_asked_for_by_the_code() {
    let asked: BTreeSet<String> = calls().into_iter().map(|call| call.key).collect();
    let unused: Vec<String> = messages(Language::En).into_keys().filter(|key| !asked.contains(key)).collect();
    assert!(unused.is_empty(), "keys no code asks for: {unused:?}");
}

#[test]
fn the_loader_serves_each_language_its_own_words() {
    assert_eq!(crate::t!(Language::En, "section-orders"), "Orders");
    assert_eq!(crate::t!(Language::ZhTw, "section-orders"), "訂單");
    assert_eq!(crate::t!(Language::ZhCn, "section-orders"), "订单");
    assert_eq!(crate::t!(Language::ZhTw, "age-minutes-ago", n = 3), "3 分鐘前");
    assert_eq!(
        crate::t!(Language::En, "error-not-found", what = "order 1043"),
        "There is nothing here: order 1043."
    );
}
