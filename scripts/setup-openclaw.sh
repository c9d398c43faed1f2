#!/usr/bin/env bash
# Installs what the OpenClaw end-to-end test runs: Node 24 and openclaw, both from the npm
# registry, into a cache outside the repository keyed by their versions, so a second run
# (and CI with the cache restored) installs nothing. Prints the cache folder on stdout.
#
#   bash scripts/setup-openclaw.sh            # install once (≈ 850 MB, about a minute)
#   HOOKWISE_OPENCLAW_CACHE=/dir bash ...     # another cache root
#
# Layout: $root/openclaw-<version>-node<node>/{node,openclaw}/node_modules, `.ready` when done.
set -euo pipefail

openclaw_version=2026.9.6
node_version=24.21.0
root=${HOOKWISE_OPENCLAW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise-openclaw}
dir=$root/openclaw-$openclaw_version-node$node_version

if [ -f "$dir/.ready" ]; then
  echo "$dir"
  exit 0
fi

log() { echo "setup-openclaw: $*" >&2; }
rm -rf "$dir.partial"
mkdir -p "$dir.partial/node" "$dir.partial/openclaw"
start=$(date +%s)
quiet=(--no-audit --no-fund --no-save --loglevel=error --update-notifier=false)

log "installing node@$node_version from the npm registry"
(cd "$dir.partial/node" && echo '{"private":true}' >package.json && npm install "${quiet[@]}" "node@$node_version" >&2)
node24=$dir.partial/node/node_modules/.bin/node
got=$("$node24" --version)
[ "$got" = "v$node_version" ] || { log "expected node v$node_version, got $got"; exit 1; }

log "installing openclaw@$openclaw_version under node $got"
(cd "$dir.partial/openclaw" && echo '{"private":true}' >package.json &&
  PATH="$dir.partial/node/node_modules/.bin:$PATH" npm install "${quiet[@]}" "openclaw@$openclaw_version" >&2)

# node's bin links point into its own folder: the whole tree moves as one.
rm -rf "$dir"
mv "$dir.partial" "$dir"
# npm's .bin/node link is relative; check it still runs after the move.
"$dir/node/node_modules/.bin/node" --version >/dev/null
date -u +%FT%TZ >"$dir/.ready"
log "done in $(($(date +%s) - start)) s: $(du -sh "$dir" | cut -f1) in $dir"
echo "$dir"
