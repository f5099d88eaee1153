#!/usr/bin/env bash
# The fuzz targets' smoke run (scripts/test.sh calls it, so CI runs it): builds
# the seven cargo-fuzz targets of fuzz/ and runs each for a short time (20 s by
# default), seeded from the project's fixtures (fuzz/seeds.sh). Any crash,
# timeout or out-of-memory fails it, and the input that did it is kept.
#
#   scripts/fuzz-smoke.sh                 every target, 20 s each
#   FUZZ_SMOKE_SECONDS=60 scripts/fuzz-smoke.sh decode cubin
#
# Works on a machine with only the stable Rust toolchain: cargo-fuzz is
# installed (`cargo install cargo-fuzz --locked`, once) when it is missing,
# and without a sanitizer every flag cargo-fuzz passes is a stable one.
# libFuzzer itself is C++, built by libfuzzer-sys, so a C++ compiler must be
# there (g++ is installed with apt where we may).
#
# The build is tuned to be short, not to find the most: no sanitizer (the
# simulator is safe Rust but for a few SIMD blocks over fixed-size arrays;
# bounds and overflow checks stay on, and a panic is what the targets look
# for), optimised (-O, with debug assertions: an unoptimised build runs each
# input far slower, and a 20 s run wants many), 16 codegen units
# (cargo-fuzz's default of one per crate leaves one of two cores idle while
# the largest crate builds, for code about 10% faster; docs/reliability.md
# has the figures). Everything it writes lands in git-ignored folders:
# fuzz/target/ (or $CARGO_TARGET_DIR) for the build, fuzz/smoke/ for the
# seeds, the corpora it grows, the logs and any crash.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${FUZZ_SMOKE_SECONDS:-20}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode cubin asm launch config program trace)
work="$root/fuzz/smoke"

say() { echo "fuzz-smoke: $*" >&2; }
die() { echo "fuzz-smoke: error: $*" >&2; exit 1; }

start=$(date +%s)
if ! command -v c++ >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        say "installing g++ (libFuzzer is C++)"
        apt-get install -y -qq g++ >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq g++ >/dev/null 2>&1; } \
            || die "g++ could not be installed; libFuzzer needs a C++ compiler"
    else
        die "no C++ compiler (c++); libFuzzer, which the fuzz targets link, is C++"
    fi
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    say "installing cargo-fuzz (once)"
    cargo install cargo-fuzz --locked --quiet || die "cargo install cargo-fuzz failed"
fi

# The same flags for the build and every run, so `cargo fuzz run` finds the
# build up to date.
flags=(-O --debug-assertions --sanitizer none --codegen-units 16)
say "building the fuzz targets ($(cargo fuzz --version))"
(cd fuzz && cargo fuzz build "${flags[@]}") || die "the fuzz targets do not build"
built=$(date +%s)

rm -rf "$work"
mkdir -p "$work/logs"
bash fuzz/seeds.sh "$work/corpus" >/dev/null
failed=()
for t in "${targets[@]}"; do
    mkdir -p "$work/artifacts/$t"
    log="$work/logs/$t.log"
    # -timeout: one input running 20 s is a hang; -rss_limit_mb: the limits
    # keep every input far below 2 GiB.
    if (cd fuzz && cargo fuzz run "${flags[@]}" "$t" "$work/corpus/$t" -- \
            -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
            -artifact_prefix="$work/artifacts/$t/" -print_final_stats=1) >"$log" 2>&1; then
        # libFuzzer's last status line: executions, then coverage and features.
        last=$(grep -E '^#[0-9]+' "$log" | tail -n1 || true)
        say "$t: ok: ${last:-no status line}"
    else
        say "$t: FAILED (the whole log: $log):"
        # The panic and its message, or what else libFuzzer saw (a timeout,
        # memory); the log's end where neither is there.
        { grep -E -A3 "panicked at" "$log" | head -n 8
          grep -E "^memory allocation of|==[0-9]+== ERROR|^SUMMARY" "$log"; } >&2 \
            || tail -n 30 "$log" >&2
        crash=$(ls "$work/artifacts/$t" 2>/dev/null | head -n1 || true)
        [ -z "$crash" ] || say "$t: the input is $work/artifacts/$t/$crash; replay it with" \
            "(cd fuzz && cargo fuzz run ${flags[*]} $t $work/artifacts/$t/$crash)"
        failed+=("$t")
    fi
done
end=$(date +%s)
say "build $((built - start)) s, runs $((end - built)) s"
[ ${#failed[@]} -eq 0 ] || die "the fuzz smoke run failed: ${failed[*]}"
