"""schemathesis hooks of the contract run (scripts/agent_clients.py loads them through
SCHEMATHESIS_HOOKS).

A read's valid `wait` (whole seconds up to 60) is shortened to one second: a generated wait on an
operation whose state does not move would make the run wait with it. A `wait` outside its bounds,
or not a number, is left as generated, so the server is still held to refuse it.
"""

import schemathesis


@schemathesis.hook
def map_query(context, query):
    wait = query.get("wait") if isinstance(query, dict) else None
    if isinstance(wait, bool) or not isinstance(wait, (int, str)):
        return query
    text = str(wait)
    if text.isdigit() and text == str(int(text)) and 1 < int(text) <= 60:
        query["wait"] = 1 if isinstance(wait, int) else "1"
    return query
