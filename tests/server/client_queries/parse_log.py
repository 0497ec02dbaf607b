# Turns PostgreSQL's log (log_statement = all, log_line_prefix '@@%c|%a@@ ') into one JSON line
# per statement of each client: <dir>/<application_name>.jsonl, a session's statements all going
# to the application name it has at any point. Usage: parse_log.py DIR < log
import json
import re
import sys

entries = []  # [session, kind, text]
apps = {}  # session -> application_name
for line in sys.stdin.read().split("\n"):
    m = re.match(r"^@@(.*?)\|(.*?)@@ (LOG|DETAIL|ERROR|STATEMENT|WARNING|NOTICE|HINT):  (.*)$", line)
    if m:
        entries.append([m.group(1), m.group(3), m.group(4)])
        if m.group(2):
            apps[m.group(1)] = m.group(2)
    elif entries:
        entries[-1][2] += "\n" + line
entries = [[apps.get(session, ""), kind, text] for session, kind, text in entries]
out = {}
for i, (app, kind, text) in enumerate(entries):
    if app not in ("pgjdbc", "psycopg", "node-pg") or kind != "LOG":
        continue
    m = re.match(r"^(?:statement|execute [^:]*): (.*)$", text, re.S)
    if not m:
        continue
    params = []
    if i + 1 < len(entries) and entries[i + 1][1] == "DETAIL" and entries[i + 1][2].startswith("parameters: "):
        for pm in re.finditer(r"\$\d+ = (NULL|'((?:[^']|'')*)')", entries[i + 1][2]):
            params.append(None if pm.group(1) == "NULL" else pm.group(2).replace("''", "'"))
    out.setdefault(app, []).append({"sql": m.group(1).rstrip(), "params": params})
for app, statements in out.items():
    with open(f"{sys.argv[1]}/{app}.jsonl", "w") as f:
        for s in statements:
            f.write(json.dumps(s) + "\n")
    print(app, len(statements), "statements")
