#!/usr/bin/env bash
# Rebuilds every cubin of the kernel suite (traces/kernels) from its CUDA C source
# with `keplersim compile` (NVRTC 11.8, fetched into .oracle/lib by
# scripts/fetch-oracle.sh). The cubins are committed so that running the suite needs
# no NVIDIA tool; rerun this after editing a source. NVRTC's output is
# deterministic, so an unchanged source rebuilds to the same bytes.
#
# Each line of the table below is: cubin name, source, -D definitions.
#
#   KEPLERSIM=path    use this keplersim binary (default: build target/release/keplersim)
#   KERNELS_OUT=dir   write the cubins there instead (sim-cli/tests/kernels.rs
#                     rebuilds into a scratch folder and compares with the committed ones)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/traces/kernels"
out=${KERNELS_OUT:-$dir}
ks=${KEPLERSIM:-}
if [ -z "$ks" ]; then
  cargo build --release -q -p sim-cli --manifest-path "$root/Cargo.toml"
  ks="$root/target/release/keplersim"
fi

build() {
  local name=$1 src=$2
  shift 2
  local defs=()
  for d in "$@"; do defs+=(-D "$d"); done
  "$ks" compile "$dir/$src" -o "$out/$name.cubin" "${defs[@]}"
}

build saxpy             saxpy.cu
build reduce            reduce.cu         BLOCK=256
build reduce_fence      reduce.cu         BLOCK=256 FENCE=1
build scan              scan.cu           BLOCK=256
build transpose_padded  transpose.cu      TILE=32 ROWS=8 PAD=1
build transpose_unpadded transpose.cu     TILE=32 ROWS=8 PAD=0
build histogram         histogram.cu
build sgemm_naive       sgemm_naive.cu
build sgemm_tiled_1x1   sgemm_tiled.cu    BX=16 BY=16 TM=1 TN=1
build sgemm_tiled_2x2   sgemm_tiled.cu    BX=16 BY=16 TM=2 TN=2
build sgemm_tiled_4x4   sgemm_tiled.cu    BX=16 BY=16 TM=4 TN=4
build sgemm_tiled_8x8   sgemm_tiled.cu    BX=16 BY=16 TM=8 TN=8
build sgemm_volkov      sgemm_volkov.cu
build bitonic           bitonic.cu        BLOCK=512
build loops             loops.cu
build call              call.cu
build local_array       local_array.cu
build dmath             dmath.cu
build fmath             fmath.cu
build widths            widths.cu         BLOCK=128
build warp              warp.cu
build convert           convert.cu
build special           special.cu
build int64             int64.cu
build atomics           atomics.cu
build globals           globals.cu

echo "build-kernels: rebuilt $(ls "$out"/*.cubin | wc -l) cubins in $out" >&2
