#!/usr/bin/env bash
# Builds the fuzz targets' seed corpora (fuzz/corpus/TARGET/) from the project's
# own fixtures: cubins, SASS sources, launch files, configurations, the ISA
# corpus's words, and a few byte strings for the random-program generator.
# The corpora are not committed; run this before `cargo fuzz run`.
set -euo pipefail
cd "$(dirname "$0")"
root=..
rm -rf corpus
mkdir -p corpus/{cubin,asm,launch,config,decode,program}
n=0
for f in $(find "$root/traces" -name '*.cubin' | sort); do cp "$f" "corpus/cubin/$((n++)).cubin"; done
for f in $(find "$root/traces" -name '*.sass' | sort); do cp "$f" "corpus/asm/$((n++)).sass"; done
for f in $(find "$root/traces" -name '*.launch.ron' | sort); do cp "$f" "corpus/launch/$((n++)).ron"; done
for f in $(find "$root/configs" -name '*.ron' | sort); do cp "$f" "corpus/config/$((n++)).ron"; done
# The ISA corpus's words, 8 to a seed (little-endian).
python3 - "$root/traces/isa-corpus/corpus.txt" corpus/decode <<'PY'
import struct, sys
words = [int(l.split('\t')[0], 16) for l in open(sys.argv[1]) if l.startswith('0x')]
for i in range(0, len(words), 8):
    open(f"{sys.argv[2]}/{i // 8}", "wb").write(b"".join(struct.pack("<Q", w) for w in words[i:i + 8]))
PY
# Random programs: a few fixed byte strings (the generator reads any bytes).
python3 - corpus/program <<'PY'
import random, sys
r = random.Random(1)
for i in range(32):
    open(f"{sys.argv[1]}/{i}", "wb").write(bytes(r.randrange(256) for _ in range(64 + 16 * i)))
PY
for t in corpus/*; do echo "$t: $(ls "$t" | wc -l) seeds"; done
