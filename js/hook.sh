# hookwise's command hook: `sh <node_modules/hookwise/dist/hook.sh> <host> <Event>`, the host's
# payload on stdin, the answer on stdout. What `hookwise init` writes for each command-hook
# host finds this file and runs it (src/command_hook/setup_cli.rs, docs/warm-hooks.md).
#
# The native client for this platform (the optional dependency @hookwise/cli-<platform>-<arch>,
# beside this package or inside it) answers from the project's warm server and hands everything
# else to Node itself; without it, or when it cannot run at all (another platform's binary, a
# damaged file: any exit but 0 or 1), Node answers: `node dist/hook.cjs`, exactly as without
# the native client. Neither decides anything here.
# HOOKWISE_NATIVE=0: Node only. (Windows: Claude Code runs hooks through Git Bash, where the
# binary is hookwise-native.exe and talks to the server over a named pipe.)
dist=${0%/*}
[ "$HOOKWISE_NATIVE" = 0 ] || for b in "$dist"/../node_modules/@hookwise/cli-*/bin/hookwise-native "$dist"/../../@hookwise/cli-*/bin/hookwise-native "$dist"/../../@hookwise/cli-win32-*/bin/hookwise-native.exe "$dist"/../node_modules/@hookwise/cli-win32-*/bin/hookwise-native.exe; do
  if [ -f "$b" ] && [ -x "$b" ]; then
    "$b" hook --dist "$dist" --host "$1" "$2"
    r=$?
    case $r in 0 | 1) exit $r ;; esac
    break
  fi
done
exec node "$dist/hook.cjs" --host "$1" "$2"
