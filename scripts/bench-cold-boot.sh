#!/usr/bin/env bash
# The first command hook after a cold boot of the machine: nothing of Node, hookwise or the
# project is in the page cache, so the hook reads them from disk. A boot cannot be had on a
# shared machine; dropping the page cache of exactly those files can (posix_fadvise DONTNEED,
# as `dd iflag=nocache` does; a page another running process maps stays, so run it on a quiet
# machine). Per project of scripts/bench-hooks.mjs (governance and enforcement on; no vault, the
# example vault, NOTES notes): `node -e 0` and `hookwise hook PreToolUse`, each with the files
# dropped before every run and with them cached, side by side. The hook runs as a host runs it,
# warm path on and no server yet: it starts one (ended after each run) and answers cold.
# Prints figures; asserts nothing. Linux only.
#
#     bash scripts/bench-cold-boot.sh [NOTES]      (needs pkg/: npm run build)
#
# NOTES defaults to 10,000; ROUNDS (default 5) runs per cell.
set -euo pipefail
cd "$(dirname "$0")/.."
notes="${1:-10000}"
rounds="${ROUNDS:-5}"
cli="$PWD/pkg/dist/cli.mjs"
[ -f "$cli" ] || { echo "no pkg/dist/cli.mjs: run \`npm run build\` first" >&2; exit 1; }
node_bin="$(readlink -f "$(command -v node)")"

list="$(mktemp)"
PREPARE="$list" node scripts/bench-hooks.mjs "$notes" >/dev/null
tmp="$(dirname "$(cut -f2 "$list" | head -1)")"
trap 'rm -rf "$tmp" "$list"' EXIT

# Every file a hook can read: Node and the libraries it loads, the package, the project (and
# its vault), the hook's HOME.
files="$(mktemp -p "$tmp")"
{
  echo "$node_bin"
  ldd "$node_bin" | grep -o '/[^ ]*' || true
  find "$PWD/pkg" -type f
  find "$tmp" -type f
} >"$files"
drop() {
  if command -v python3 >/dev/null; then
    python3 - "$files" <<'PY'
import os, sys
for f in open(sys.argv[1]).read().split("\n"):
    try:
        fd = os.open(f, os.O_RDONLY)
    except OSError:
        continue
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
PY
  else
    while read -r f; do dd if="$f" iflag=nocache count=0 status=none 2>/dev/null || true; done <"$files"
  fi
}
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# one hook as the host runs it; its server (started in a runtime folder of its own) is ended
hook() { # dir home path payload
  local run t
  run="$(mktemp -d -p "$tmp")"
  t=$(date +%s%N)
  (cd "$1" && printf '%s' "$4" | env -i HOME="$2" PATH="$3" TZ=UTC LANG=C.UTF-8 XDG_RUNTIME_DIR="$run" \
    "$node_bin" "$cli" hook PreToolUse >/dev/null 2>&1) || true
  ms "$t"
  sleep 0.3
  for l in "$run"/hookwise/*.lock; do [ -f "$l" ] && kill -9 "$(cat "$l")" 2>/dev/null || true; done
}

echo "first hook after a cold boot (page cache of Node, hookwise and the project dropped before each run);"
echo "node $(node --version), $(nproc) cpus, load $(cut -d' ' -f1 /proc/loadavg), $rounds runs a cell, median ms"
printf '%-18s %18s %18s %18s %18s\n' project "node -e 0 dropped" "node -e 0 cached" "hook dropped" "hook cached"
while IFS=$'\t' read -r label dir home path payload; do
  a="" b="" c="" d=""
  for _ in $(seq "$rounds"); do
    drop; t=$(date +%s%N); env -i "$node_bin" -e 0; a="$a $(ms "$t")"
    t=$(date +%s%N); env -i "$node_bin" -e 0; b="$b $(ms "$t")"
    drop; c="$c $(hook "$dir" "$home" "$path" "$payload")"
    d="$d $(hook "$dir" "$home" "$path" "$payload")"
  done
  printf '%-18s %18s %18s %18s %18s\n' "$label" "$(echo "$a" | median)" "$(echo "$b" | median)" "$(echo "$c" | median)" "$(echo "$d" | median)"
done <"$list"
