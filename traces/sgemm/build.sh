#!/usr/bin/env bash
# Rebuilds every SGEMM kernel of traces/sgemm from its generator
# (`keplersim gen sgemm`, sim-cli/src/sgemm.rs) and keplersim's assembler:
# the .sass sources, the cubins and the launch files. Deterministic: a rebuild
# of an unchanged generator changes nothing (tests/sgemm checks it).
set -euo pipefail
cd "$(dirname "$0")"
cargo build --release -q -p sim-cli
K=../../target/release/keplersim
gen() { # STEP BLOCK OUT SIZE
    "$K" gen sgemm --step "$1" --block "$2" -o "$3.sass" --launch "$3.launch.ron" --size "$4"
    "$K" asm "$3.sass" -o "$3.cubin"
}
# The tuned kernel (the main job) and its 8x8 variant.
gen dual 12 sgemm 1536
gen dual 8 sgemm8x8 1536
# The optimisation ladder below it: the paper's four steps and its +Dual
# (the paper's control bytes), which the tuned kernel re-tunes.
for step in baseline reg ld128 ldg128 paper; do
    gen "$step" 12 "ladder/$step" 768
done
