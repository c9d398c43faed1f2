#!/usr/bin/env bash
# Installs the Claude Code CLI that tests/e2e-claude runs, pinned, from the npm registry, into a
# cache outside the repository keyed by its version, so a second run (and CI with the cache
# restored) installs nothing. Prints the path of the `claude` executable on stdout.
#
#   bash scripts/setup-claude.sh              # install once (≈ 400 MB native binary, ~10 s)
#   HOOKWISE_CLAUDE_CACHE=/dir bash ...       # another cache root
#
# The package wants node >= 22 (npm warns EBADENGINE under node 20) but the CLI is a native
# binary, so node 20 is fine. Layout: $root/claude-code-<version>/node_modules, `.ready` when done.
set -euo pipefail

claude_version=2.1.330
root=${HOOKWISE_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise-claude}
dir=$root/claude-code-$claude_version
bin=$dir/node_modules/.bin/claude

if [ -f "$dir/.ready" ] && [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

log() { echo "setup-claude: $*" >&2; }
rm -rf "$dir.partial"
mkdir -p "$dir.partial"
start=$(date +%s)
log "installing @anthropic-ai/claude-code@$claude_version from the npm registry"
(cd "$dir.partial" && echo '{"private":true}' >package.json &&
  npm install --no-audit --no-fund --no-save --loglevel=error --update-notifier=false \
    "@anthropic-ai/claude-code@$claude_version" >&2)
rm -rf "$dir"
mv "$dir.partial" "$dir"
got=$("$bin" --version 2>/dev/null || true)
case "$got" in
  "$claude_version "*) ;;
  *) log "expected claude $claude_version, got '$got'"; exit 1 ;;
esac
date -u +%FT%TZ >"$dir/.ready"
log "done in $(($(date +%s) - start)) s: $(du -sh "$dir" | cut -f1) in $dir"
echo "$bin"
