#!/usr/bin/env bash
# scripts/bench-compare.sh [BASE]   — the benchmarks of BASE's build and this tree's, side by side
#
# Builds the package of BASE (default cc99600, main before issue 19's wave) in a throw-away git
# worktree (node_modules linked from this checkout, its own cargo target kept for the next run),
# builds this tree's package, then runs every benchmark that exists in both trees against the two
# builds in turn (base, now, base, now, …: same machine, same minutes) and prints one table per
# benchmark: metric, base, now, now/base and the spread of one build's runs (a ratio inside the
# spread is within this run's noise; ⚠ marks one outside it and beyond 10 %).
#
# Each tree runs its own copy of a benchmark against its own build (the scripts read ../pkg/dist
# beside them, and a script may have followed an API change: the script says which differ). The
# wall-clock figures are medians of the runs. Where the work is CPU-bound wasm (hook overhead, a
# cold vault index) instructions are also counted with callgrind (node --no-liftoff, one V8
# thread): repeatable on a shared machine where wall time is not.
#
# Environment: ROUNDS (runs per build; 2, 4 for the quick `bench`), NO_BUILD=1 (reuse both pkg/), NO_CALLGRIND=1,
# ONLY="bench bench-vault" (a subset), KEEP=1 (keep the worktree and the outputs).
# Not part of CI; ~20–30 minutes on the shared 2-core machine (the first build of BASE and the
# callgrind runs, ~25 s of start-up each, are most of it; NO_CALLGRIND=1 for ~12).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BASE=${1:-cc99600}
sha=$(git -C "$here" rev-parse --short=12 "$BASE^{commit}")
work=${TMPDIR:-/tmp}/hookwise-bench-$sha
tree=$work/tree
out=$work/out
mkdir -p "$work/target"
rm -rf "$out"
mkdir -p "$out"

# ---- the base build, in a worktree of its own ------------------------------------------------
if [ ! -e "$tree/.git" ]; then
  git -C "$here" worktree add --detach --quiet "$tree" "$sha"
fi
ln -sfn "$(readlink -f "$here/node_modules")" "$tree/node_modules"
# its own cargo target (scripts/build.mjs reads target/ under its root): kept between runs, so
# only the first comparison against a commit compiles its dependencies
ln -sfn "$work/target" "$tree/target"
cleanup() {
  if [ "${KEEP:-}" != 1 ]; then
    git -C "$here" worktree remove --force "$tree" 2>/dev/null || true
  fi
}
trap cleanup EXIT

if [ "${NO_BUILD:-}" != 1 ] || [ ! -f "$tree/pkg/dist/engine.cjs" ]; then
  echo "building $sha (base) …" >&2
  (cd "$tree" && npm run build --silent >"$work/build-base.log" 2>&1) || { tail -20 "$work/build-base.log" >&2; exit 1; }
fi
if [ "${NO_BUILD:-}" != 1 ] || [ ! -f "$here/pkg/dist/engine.cjs" ]; then
  echo "building this tree (now) …" >&2
  (cd "$here" && npm run build --silent >"$work/build-now.log" 2>&1) || { tail -20 "$work/build-now.log" >&2; exit 1; }
fi
now_desc="$(git -C "$here" rev-parse --short=7 HEAD)$(git -C "$here" diff --quiet HEAD -- src crates js Cargo.toml scripts/build.mjs || echo "+changes")"

# ---- the benchmarks, alternated ---------------------------------------------------------------
# name, then its arguments: sized so the whole comparison stays under ~20 minutes (the fake
# maenifold's start-up shortened from the real 1.8 s: it is a sleep, the same for both builds)
# name|runs per build (ROUNDS overrides)|arguments
benches=(
  "bench|4|"
  "bench-vault|2|5000"
  "bench-session|2|--runs 3 --startup 300"
  "bench-governance|2|--calls 1000 --records 400 --procs 4"
  "bench-enforce|2|--calls 100"
  "bench-mcp|2|--runs 3 --startup 300"
  "bench-spawn|2|10"
)
export ROUNDS_VAULT=${ROUNDS_VAULT:-200}

echo "# bench-compare: base $sha, now $now_desc — $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg) at the start"
echo
for entry in "${benches[@]}"; do
  IFS='|' read -r name rounds args <<<"$entry"
  rounds=${ROUNDS:-$rounds}
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then continue; fi
  if [ ! -f "$tree/scripts/$name.mjs" ] || [ ! -f "$here/scripts/$name.mjs" ]; then
    echo "## $name: not in both trees, skipped"
    echo
    continue
  fi
  note="the same script in both trees"
  if ! cmp -s "$tree/scripts/$name.mjs" "$here/scripts/$name.mjs"; then
    note="each tree's own script (it changed between the two commits)"
  fi
  echo "## $name $args ($note; $rounds runs each, alternated)" >&2
  t0=$(date +%s)
  for ((i = 1; i <= rounds; i++)); do
    for side in base now; do
      root=$here
      [ "$side" = base ] && root=$tree
      # shellcheck disable=SC2086 # the arguments are words
      (cd "$root" && ROUNDS=$ROUNDS_VAULT timeout 900 node "scripts/$name.mjs" $args) >"$out/$name.$side.$i.txt" 2>"$out/$name.$side.$i.err" ||
        echo "($name, $side, run $i failed: $(tail -c 300 "$out/$name.$side.$i.err"))" >&2
    done
  done
  echo "## $name ${args:+($args) }— $note, $rounds runs each, alternated, $(($(date +%s) - t0)) s"
  echo
  node "$here/scripts/bench-compare-table.mjs" "$out" "$name"
  echo
done

# ---- instruction counts (callgrind) -------------------------------------------------------------
if [ "${NO_CALLGRIND:-}" != 1 ] && command -v valgrind >/dev/null; then
  echo "## instructions (callgrind) …" >&2
  notes=1000
  calls=2000
  vault=$work/vault-$notes
  if [ ! -d "$vault" ]; then
    (cd "$here" && node --input-type=module -e "
      import fs from 'node:fs'; import path from 'node:path';
      import { benchVault, DIRS, relOf } from './scripts/bench-vault-notes.mjs';
      const { note } = benchVault(); const v = process.argv[1];
      for (const d of DIRS) fs.mkdirSync(path.join(v, d), { recursive: true });
      for (let i = 0; i < $notes; i++) fs.writeFileSync(path.join(v, relOf(i)), note(i, i % 500 === 0));
    " "$vault")
  fi
  # one process: load the build, then either nothing more, a cold index of the vault, or N
  # tool.execute.before calls with three links (bench.mjs's instant knowledge source)
  cat >"$work/cg.cjs" <<'JS'
const [dist, mode, arg] = process.argv.slice(2);
const { createEngine } = require(`${dist}/engine.cjs`);
const ANSWER = (c) =>
  `Context for CONCEPT: ${c}\n\nDirect relations (2 CONCEPTS):\n  • jwt (co-occurs in 3 files)\n    Files: memory://notes/auth-design, memory://notes/api\n    Content preview:\n      memory://notes/auth-design: Tokens are RS256-signed and rotated daily.\n  • session-tokens (co-occurs in 1 files)\n    Files: memory://notes/api\n`;
const runner = async (argv) => ({ success: true, stdout: ANSWER(JSON.parse(argv[4]).conceptName), stderr: "", exitCode: 0, timedOut: false, durationMs: 0 });
(async () => {
  const log = () => {};
  if (mode === "vault") {
    const e = await createEngine({ cwd: arg, env: { PATH: "", HOME: arg }, options: { knowledge: "vault", vault: arg, vaultRefreshMs: 0 }, log, watch: false });
    if (!(await e.doctor()).vault.index.files) throw new Error("nothing indexed");
    e.dispose();
    return;
  }
  const e = await createEngine({ options: { cliPath: process.execPath }, runner, cwd: __dirname, log });
  const prompt = `${"x".repeat(1000)} [[auth]] [[REST API]] [[rate-limiting]]`;
  for (let i = 0; i < Number(arg); i++) {
    const args = { description: "bench", prompt, subagent_type: "general" };
    await e._hw.toolBefore({ tool: "task", sessionId: "s", callId: `c${i}`, args });
    if (i === 0 && !args.prompt.includes("## [[auth]]")) throw new Error("no context added");
  }
})().catch((e) => { console.error(e); process.exit(1); });
JS
  count() { # dist mode arg -> instructions
    valgrind --tool=callgrind --callgrind-out-file=/dev/null node --no-liftoff --single-threaded "$work/cg.cjs" "$@" 2>&1 |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  # pre-action decisions (policy wasm, 52 SOPs cached, no file writes): today's
  # bench-enforce.mjs against either build (the engine API it uses is the same in both)
  decisions=300
  count_enforce() { # dist calls -> instructions
    HOOKWISE_DIST=$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null node --no-liftoff --single-threaded \
      "$here/scripts/bench-enforce.mjs" --instructions --calls "$2" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
  }
  declare -A ins
  for side in base now; do
    dist=$here/pkg/dist
    [ "$side" = base ] && dist=$tree/pkg/dist
    ins[$side.load]=$(count "$dist" hook 0)
    ins[$side.hook]=$(count "$dist" hook $calls)
    ins[$side.vault]=$(count "$dist" vault "$vault")
    ins[$side.enf0]=$(count_enforce "$dist" 0)
    ins[$side.enf]=$(count_enforce "$dist" $decisions)
  done
  echo "## instructions (callgrind; node --no-liftoff --single-threaded; deterministic to ~0.1 %)"
  echo
  node -e '
    const [b0, bh, bv, be0, be, n0, nh, nv, ne0, ne, calls, notes, decisions] = process.argv.slice(1).map(Number);
    const row = (m, b, n, f) => console.log(`| ${m} | ${f(b)} | ${f(n)} | ${(n / b).toFixed(3)} |`);
    const M = (x) => `${(x / 1e6).toFixed(1)} M`;
    console.log("| metric | base | now | now/base |\n|---|---|---|---|");
    row("load + init (hook set-up, no calls)", b0, n0, M);
    row(`one tool.execute.before, 1 KB, 3 links (mean of ${calls})`, (bh - b0) / calls, (nh - n0) / calls, (x) => `${Math.round(x / 1e3)} k`);
    row(`one cold index, ${notes} notes (process total minus load + init)`, bv - b0, nv - n0, M);
    // bench-enforce warms up with a fifth of the calls (at most 100) before it measures
    const d = decisions + Math.min(100, Math.floor(decisions / 5));
    row(`one pre-action decision, 52 SOPs cached, no metrics (mean of ${d})`, (be - be0) / d, (ne - ne0) / d, (x) => `${Math.round(x / 1e3)} k`);
  ' "${ins[base.load]}" "${ins[base.hook]}" "${ins[base.vault]}" "${ins[base.enf0]}" "${ins[base.enf]}" \
    "${ins[now.load]}" "${ins[now.hook]}" "${ins[now.vault]}" "${ins[now.enf0]}" "${ins[now.enf]}" "$calls" "$notes" "$decisions"
  echo
fi

for side in base now; do
  d=$here/pkg/dist
  [ "$side" = base ] && d=$tree/pkg/dist
  node -e 'const fs = require("fs"), z = require("zlib"), [s, d] = process.argv.slice(1);
    const f = (p) => { const b = fs.readFileSync(p); return `${b.length} bytes, ${z.gzipSync(b, { level: 9 }).length} gzipped`; };
    console.log(`${s}: lean wasm ${f(d + "/hookwise_bg.wasm")}; policy wasm ${f(d + "/policy/hookwise_bg.wasm")}`);' "$side" "$d"
done
[ "${KEEP:-}" = 1 ] && echo "(outputs kept in $out)" >&2
exit 0
