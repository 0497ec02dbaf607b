#!/usr/bin/env bash
# Checks that each layer under src/shoal/ includes only the layers below it.
#
# The order (docs/architecture.md):
#   common < columnar < io < sql < exec < distributed < engine < server < cli.
# A file in src/shoal/<layer>/ may write #include "shoal/<other>/..." only when <other> is <layer>
# itself or a layer before it. CMake links each layer only to the layers below it, so a forbidden
# call usually fails to link anyway; this check also catches header-only use, which links fine.
#
# cli is narrower still: it may include only
#   shoal/cli/...      itself;
#   shoal/server/...   to start `shoal server` (the server in turn talks only to engine and below);
#   shoal/engine/...   the composition layer, its one way into the engine (sessions, execution modes,
#                      worker processes, the settings catalog), so that the shell, the server and
#                      tests all run queries the same way and a change below engine never needs
#                      a change in cli;
#   shoal/columnar/... to print results (pretty_print.h, IPC for `shoal demo`);
#   shoal/io/...       for `shoal tpchgen`, which writes generated tables to files;
#   shoal/common/...   Status, versions, byte sizes;
# and never shoal/sql/..., shoal/exec/... or shoal/distributed/... directly (what it needs from
# them, engine wraps or re-exports through its own headers).
#
# Also checked:
#   - includes of our headers are written from src/ ("shoal/<layer>/x.h"), never relative ("../x.h");
#   - no source includes a .cc file (clang-tidy's bugprone-suspicious-include is off in
#     scripts/tidy.sh's batches, which include .cc files by design);
#   - gRPC and protobuf headers appear only in distributed and server (exec must not know the
#     network; cli reaches workers through engine);
#   - libpg_query's header appears only in sql;
#   - headers named *_internal.h are included only from their own layer (and from tests);
#   - every folder under src/shoal/ is a known layer (a new layer must be added here first);
#   - no include circle: taking x.h, x.cc and x's private header x_internal.h (when x.h exists) as
#     one module x, no modules x, y, ... exist where x includes y, y includes ..., and the last
#     includes x again (each circle is printed in order).
# tests/, bench/ and tools may include anything. Exit status 1 on any violation.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

layers=(common columnar io sql exec distributed engine server cli)
# The layers cli may include (see the header comment).
cli_may_include=(cli server engine columnar io common)

# index_of LAYER: its position in the order, or -1.
index_of() {
  local i
  for i in "${!layers[@]}"; do
    if [ "${layers[$i]}" = "$1" ]; then
      echo "$i"
      return
    fi
  done
  echo -1
}

errors=0
report() {
  echo "layering: $1"
  errors=$((errors + 1))
}

for dir in src/shoal/*/; do
  layer=$(basename "$dir")
  if [ "$(index_of "$layer")" -lt 0 ]; then
    report "src/shoal/$layer/ is not a known layer; add it to the order in scripts/check-layering.sh and docs/architecture.md"
  fi
done

checked=0
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  layer=${file#src/shoal/}
  layer=${layer%%/*}
  own=$(index_of "$layer")
  [ "$own" -ge 0 ] || continue
  lineno=0
  while IFS= read -r line; do
    lineno=$((lineno + 1))
    case "$line" in
      *'#'*include*) ;;
      *) continue ;;
    esac
    # Only real include directives: optional spaces, '#', optional spaces, 'include'.
    [[ "$line" =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\"\>]+)[\"\>] ]] || continue
    delim=${BASH_REMATCH[1]}
    target=${BASH_REMATCH[2]}
    where="$file:$lineno"
    if [ "$delim" = '"' ]; then
      case "$target" in
        shoal/*/*)
          other=${target#shoal/}
          other=${other%%/*}
          theirs=$(index_of "$other")
          if [ "$theirs" -lt 0 ]; then
            report "$where: includes \"$target\" from unknown layer '$other'"
          elif [ "$theirs" -gt "$own" ]; then
            report "$where: layer '$layer' may not include \"$target\" ('$other' is above '$layer')"
          elif [ "$theirs" -ne "$own" ] && [[ "$target" == *_internal.h ]]; then
            report "$where: \"$target\" is internal to layer '$other'"
          elif [ "$layer" = cli ] && [[ " ${cli_may_include[*]} " != *" $other "* ]]; then
            report "$where: cli may not include \"$target\"; it talks to '$other' through engine (cli may include: ${cli_may_include[*]})"
          fi
          ;;
        ../* | */../* | ./*)
          report "$where: relative include \"$target\"; write it from src/ (\"shoal/<layer>/...\")"
          ;;
      esac
    fi
    case "$target" in
      *.cc | *.cpp | *.cxx)
        report "$where: includes the source file \"$target\"; include its header (scripts/tidy.sh batches sources itself)"
        ;;
      grpc/* | grpcpp/* | grpc++/* | google/protobuf/*)
        case "$layer" in
          distributed | server) ;;
          *) report "$where: gRPC/protobuf header <$target> outside distributed and server" ;;
        esac
        ;;
      pg_query.h | pg_query/*)
        [ "$layer" = sql ] || report "$where: libpg_query header <$target> outside sql"
        ;;
    esac
  done <"$file"
done < <(find src/shoal -type f \( -name '*.h' -o -name '*.cc' -o -name '*.h.in' \) -print0 | sort -z)

# Include circles. Each .h/.cc pair is one module; a circle is a strongly connected component of
# the module graph with more than one module, reported as one concrete path through it.
circles=0
python3 - <<'PY' || circles=$?
import os, re, sys
root = "src"
inc = re.compile(r'^\s*#\s*include\s*"(shoal/[^"]+)"')
graph = {}
def mod(p):
    for suf in (".h.in", ".h", ".cc"):
        if p.endswith(suf):
            p = p[: -len(suf)]
            break
    # x_internal.h is the private header shared by the files of module x (next to x.h).
    if p.endswith("_internal") and os.path.exists(os.path.join(root, p[: -len("_internal")] + ".h")):
        p = p[: -len("_internal")]
    return p
for d, _, fs in os.walk("src/shoal"):
    for f in fs:
        if not f.endswith((".h", ".cc", ".h.in")):
            continue
        path = os.path.join(d, f)
        m = mod(os.path.relpath(path, root))
        graph.setdefault(m, set())
        with open(path, errors="replace") as fh:
            for line in fh:
                r = inc.match(line)
                if r:
                    t = mod(r.group(1))
                    if t != m:
                        graph[m].add(t)
# Tarjan SCC
sys.setrecursionlimit(100000)
index, low, on, stack, sccs, n = {}, {}, set(), [], [], [0]
def strong(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in sorted(graph.get(v, ())):
        if w not in graph:
            continue
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: sccs.append(sorted(c))
for v in sorted(graph):
    if v not in index: strong(v)
# For each SCC print one cycle through its smallest module (BFS within SCC).
for c in sorted(sccs):
    cs = set(c); start = c[0]
    prev = {start: None}; q = [start]; found = None
    while q and not found:
        v = q.pop(0)
        for w in sorted(graph[v]):
            if w == start: found = v; break
            if w in cs and w not in prev:
                prev[w] = v; q.append(w)
    path = []; v = found
    while v is not None: path.append(v); v = prev[v]
    path.reverse(); path.append(start)
    print("layering: include circle among %d modules {%s}: %s" % (len(c), ", ".join(c), " -> ".join(path)))
sys.exit(len(sccs))
PY
errors=$((errors + circles))

if [ "$errors" -gt 0 ]; then
  echo "layering: $errors violation(s) in $checked files (order: ${layers[*]})"
  exit 1
fi
echo "layering: $checked files OK (order: ${layers[*]})"
