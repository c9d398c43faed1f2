#!/usr/bin/env bash
# Installs what the VS Code example extension's test runs (tests/vscode): code-server (VS Code's
# own server and extension host, in the browser) under Node 24, both from the npm registry, into
# a cache outside the repository keyed by their versions; a second run installs nothing.
# code-server's install builds VS Code's native modules (spdlog, node-pty, kerberos, …) with
# node-gyp: it needs make, g++, python3, the Kerberos headers (Debian's libkrb5-dev) and Node's
# headers, taken from the system's node (/usr/include/node, the nodejs package: Node-API
# modules build against any version) — node-gyp would otherwise download them from nodejs.org,
# which is not a package registry. Prints the cache folder on stdout.
#
#   bash scripts/setup-code-server.sh            # install once (≈ 700 MB, several minutes on 2 cores)
#   HOOKWISE_CODE_SERVER_CACHE=/dir bash ...     # another cache root
#
# Layout: $root/code-server-<version>-node<node>/{node,code-server}/node_modules, `.ready` when done.
set -euo pipefail

code_server_version=4.139.1
node_version=24.21.0
root=${HOOKWISE_CODE_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookwise-code-server}
dir=$root/code-server-$code_server_version-node$node_version

if [ -f "$dir/.ready" ]; then
  echo "$dir"
  exit 0
fi

log() { echo "setup-code-server: $*" >&2; }
rm -rf "$dir.partial"
mkdir -p "$dir.partial/node" "$dir.partial/code-server"
start=$(date +%s)
quiet=(--no-audit --no-fund --no-save --loglevel=error --update-notifier=false)

log "installing node@$node_version from the npm registry"
(cd "$dir.partial/node" && echo '{"private":true}' >package.json && npm install "${quiet[@]}" "node@$node_version" >&2)
node24=$dir.partial/node/node_modules/.bin/node
got=$("$node24" --version)
[ "$got" = "v$node_version" ] || { log "expected node v$node_version, got $got"; exit 1; }

[ -f /usr/include/gssapi/gssapi.h ] || { log "the Kerberos headers are missing: apt-get install libkrb5-dev"; exit 1; }
[ -f /usr/include/node/node_api.h ] || { log "Node's headers are missing (/usr/include/node): install the system's nodejs package"; exit 1; }
export npm_config_nodedir=/usr
log "installing code-server@$code_server_version under node $got (builds native modules: minutes)"
(cd "$dir.partial/code-server" && echo '{"private":true}' >package.json &&
  PATH="$dir.partial/node/node_modules/.bin:$PATH" npm install "${quiet[@]}" "code-server@$code_server_version" >&2)

rm -rf "$dir"
mv "$dir.partial" "$dir"
"$dir/node/node_modules/.bin/node" --version >/dev/null
date -u +%FT%TZ >"$dir/.ready"
log "done in $(($(date +%s) - start)) s: $(du -sh "$dir" | cut -f1) in $dir"
echo "$dir"
