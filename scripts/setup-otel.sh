#!/usr/bin/env bash
# Installs the real OpenTelemetry backends tests/otel exports to, each pinned, from PyPI, into
# Python virtual environments in a cache outside the repository keyed by name and version, so a
# second run (and CI with the cache restored) installs nothing:
#   - Arize Phoenix (arize-phoenix): receives OTLP/HTTP traces (protobuf) and serves them back
#     through its REST API (GET /v1/projects/<project>/spans) — the spans' readback;
#     ≈ 850 MB, ≈ 80 s once.
#   - rotel (the Rust OpenTelemetry collector's Python wheel): receives all three signals over
#     OTLP/HTTP (protobuf and JSON) and prints what it received (its debug log, detailed) — the
#     metrics' and logs' readback; ≈ 55 MB, ≈ 10 s once.
#
#   bash scripts/setup-otel.sh                  # both
#   bash scripts/setup-otel.sh rotel            # only this one
#   bash scripts/setup-otel.sh --where phoenix  # the program if installed, else nothing (exit 1)
#   HOOKWISE_OTEL_CACHE=/dir bash ...           # another cache root
#
# Prints `<name> <program>` per backend on stdout. Layout: $root/<name>-<version>/ (a venv),
# `.ready` when done. The table is the one place a backend's version is pinned: tests/otel reads
# it through `--where`.
set -euo pipefail

root=${HOOKWISE_OTEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise-otel}

# name | PyPI package | version | program under the venv
table() {
  cat <<'TABLE'
phoenix|arize-phoenix|20.26.1|bin/phoenix
rotel|rotel|0.0.1a15|lib/python3*/site-packages/rotel/rotel-agent
TABLE
}

log() { echo "setup-otel: $*" >&2; }

where=0
if [ "${1:-}" = "--where" ]; then where=1; shift; fi
wanted=("$@")
if [ ${#wanted[@]} -eq 0 ]; then mapfile -t wanted < <(table | cut -d'|' -f1); fi

python=${HOOKWISE_OTEL_PYTHON:-$(command -v python3 || true)}
# one install at a time (two setups at once would remove each other's half-made venv)
if [ $where = 0 ]; then
  mkdir -p "$root"
  exec 9>"$root/.lock"
  flock 9
fi
status=0
for name in "${wanted[@]}"; do
  line=$(table | awk -F'|' -v n="$name" '$1 == n')
  [ -n "$line" ] || { log "unknown backend '$name' (known: $(table | cut -d'|' -f1 | tr '\n' ' '))"; exit 2; }
  IFS='|' read -r _ pkg version prog <<<"$line"
  dir=$root/$name-$version
  bin=$(compgen -G "$dir/$prog" | head -1 || true)
  if [ -f "$dir/.ready" ] && [ -n "$bin" ] && [ -x "$bin" ]; then
    echo "$name $bin"
    continue
  fi
  if [ $where = 1 ]; then status=1; continue; fi
  [ -n "$python" ] || { log "no python3: cannot install $name"; status=1; continue; }
  log "installing $pkg==$version from PyPI into $dir"
  t0=$(date +%s)
  # installed in place (a venv's scripts name their interpreter by path); `.ready` marks it whole
  rm -rf "$dir"
  "$python" -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$pkg==$version"
  touch "$dir/.ready"
  bin=$(compgen -G "$dir/$prog" | head -1 || true)
  log "$name done in $(( $(date +%s) - t0 )) s: $(du -sh "$dir" | cut -f1)"
  echo "$name $bin"
done
exit $status
