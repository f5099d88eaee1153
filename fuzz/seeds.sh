#!/usr/bin/env bash
# Builds the fuzz targets' seed corpora (fuzz/corpus/TARGET/) from the project's
# own fixtures: cubins, SASS sources, launch files, configurations, the ISA
# corpus's words, a few byte strings for the random-program generator, and
# traces of three suite kernels (recorded by `keplersim run --trace`, through
# `cargo run --release`, which builds the binary first if it is not built).
# The corpora are not committed; run this before `cargo fuzz run`.
#
#   fuzz/seeds.sh          writes fuzz/corpus/TARGET/ (replacing what is there)
#   fuzz/seeds.sh DIR      writes DIR/TARGET/ instead (scripts/fuzz-smoke.sh)
set -euo pipefail
out=$(mkdir -p "${1:-$(dirname "$0")/corpus}" && cd "${1:-$(dirname "$0")/corpus}" && pwd)
cd "$(dirname "$0")"
root=..
rm -rf "${out:?}"/{cubin,asm,launch,config,decode,program,trace}
mkdir -p "$out"/{cubin,asm,launch,config,decode,program,trace}
n=0
for f in $(find "$root/traces" -name '*.cubin' | sort); do cp "$f" "$out/cubin/$((n++)).cubin"; done
for f in $(find "$root/traces" -name '*.sass' | sort); do cp "$f" "$out/asm/$((n++)).sass"; done
for f in $(find "$root/traces" -name '*.launch.ron' | sort); do cp "$f" "$out/launch/$((n++)).ron"; done
for f in $(find "$root/configs" -name '*.ron' | sort); do cp "$f" "$out/config/$((n++)).ron"; done
# The configuration with `--param` settings after a 0 byte, a line each.
{ cat "$root/configs/k20m.ron"; printf '\0timing.issue_interval=2\nreuse_warps=0\nchip.sms=2\n'; } > "$out/config/$((n++)).ron"
# The ISA corpus's words, 8 to a seed (little-endian).
python3 - "$root/traces/isa-corpus/corpus.txt" "$out/decode" <<'PY'
import struct, sys
words = [int(l.split('\t')[0], 16) for l in open(sys.argv[1]) if l.startswith('0x')]
for i in range(0, len(words), 8):
    open(f"{sys.argv[2]}/{i // 8}", "wb").write(b"".join(struct.pack("<Q", w) for w in words[i:i + 8]))
PY
# Random programs: a few fixed byte strings (the generator reads any bytes).
python3 - "$out/program" <<'PY'
import random, sys
r = random.Random(1)
for i in range(32):
    open(f"{sys.argv[1]}/{i}", "wb").write(bytes(r.randrange(256) for _ in range(64 + 16 * i)))
PY
# Traces: two short windows of one SM of three suite kernels (a few KB each),
# and 100 cycles of the tuned SGEMM's loop, whose pairs issue apart at times.
for k in saxpy reduce atomics; do
    for w in 0..150 100..400; do
        (cd "$root" && cargo run --release -q -p sim-cli -- run "traces/kernels/$k.cubin" \
            --trace "$out/trace/$k-$w" --trace-cycles "$w" --trace-sms 0 >/dev/null)
    done
done
(cd "$root" && cargo run --release -q -p sim-cli -- run traces/sgemm/sgemm.cubin --set m=192 \
    --set n=192 --set k=96 --trace "$out/trace/sgemm-3000..3100" --trace-cycles 3000..3100 \
    --trace-sms 0 >/dev/null)
for t in cubin asm launch config decode program trace; do echo "$out/$t: $(ls "$out/$t" | wc -l) seeds"; done
