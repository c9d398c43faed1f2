#!/usr/bin/env bash
# The long fuzz run: every property of tests/fuzz.rs with PROPTEST_CASES cases each (default
# 100,000), in an optimized build, in the lean build and the policy build, with fresh random
# seeds; then the scaling report (time against input size, per parser). Prints the cases run
# per parser. `cargo test` runs the same properties with a few hundred cases each.
#
#   scripts/fuzz.sh                     # 100,000 cases per property
#   PROPTEST_CASES=5000 scripts/fuzz.sh # a shorter run
#   PROPTEST_RNG_SEED=123 scripts/fuzz.sh   # replay a seed a failure printed
#   FUZZ_FILTER=glob scripts/fuzz.sh    # only the properties whose name holds "glob"
#   FUZZ_SCALING=0 scripts/fuzz.sh      # skip the scaling report
set -euo pipefail
cd "$(dirname "$0")/.."

export PROPTEST_CASES="${PROPTEST_CASES:-100000}"
export HOOKWISE_FUZZ_RANDOM="${HOOKWISE_FUZZ_RANDOM:-1}"
# Optimized, but quick to build and apart from the release build of the wasm (its own target
# folder; no LTO). Tests unwind whatever the profile says, so a failing case is caught and shrunk.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/fuzz}"
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
export CARGO_PROFILE_RELEASE_OPT_LEVEL=2
threads="${FUZZ_THREADS:-$(nproc 2>/dev/null || echo 2)}"
filter="${FUZZ_FILTER:-}"
log="$(mktemp -t hookwise-fuzz.XXXXXX)"   # stderr: the properties' own lines, panics
out="$(mktemp -t hookwise-fuzz.XXXXXX)"   # stdout: the test harness
trap 'rm -f "$log" "$out"' EXIT

echo "fuzz: ${PROPTEST_CASES} cases per property, ${threads} threads, seeds ${PROPTEST_RNG_SEED:-random}"
status=0
for build in lean policy; do
  features=()
  [ "$build" = policy ] && features=(--features policy)
  echo "== ${build} build"
  start=$(date +%s)
  if ! cargo test --quiet --release "${features[@]}" --test fuzz -- ${filter:+"$filter"} \
      --nocapture --test-threads "$threads" >"$out" 2>"$log"; then
    status=1
    echo "FAILED (${build} build):"
    { grep -hE "^fuzz: .*(failed|aborted)|minimal input|panicked at|overflowed|error|FAILED" "$log" "$out" || true; } | head -40
  fi
  # (no property may have finished: a failed build still goes on to the next)
  { grep -E "^fuzz: .*: [0-9]+ cases" "$log" || true; } | sort
  echo "-- cases per parser (${build} build, $(( $(date +%s) - start )) s):"
  { grep -E "^fuzz: .*: [0-9]+ cases" "$log" || true; } | awk '
    { sub(/^fuzz: /, ""); parser = $0; sub(/:.*/, "", parser);
      n = $0; sub(/ cases.*/, "", n); sub(/.*: /, "", n); cases[parser] += n; props[parser]++ }
    END { for (p in cases) printf "   %-10s %9d cases in %d properties\n", p, cases[p], props[p] }' | sort
done

if [ "${FUZZ_SCALING:-1}" = 1 ] && [ -z "$filter" ]; then
  echo "== scaling (policy build; growth = t(8n) / 8 t(n): ~1 linear, ~8 quadratic)"
  cargo test --quiet --release --features policy --test fuzz scaling_report -- --ignored --nocapture 2>&1 |
    grep -E "^scale:" || status=1
fi
exit $status
