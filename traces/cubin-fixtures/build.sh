#!/usr/bin/env bash
# Rebuilds the cubin fixtures in this folder from the PTX sources in src/ with NVIDIA's
# ptxas (CUDA 11.8, fetched into .oracle/bin by scripts/fetch-oracle.sh). The .cubin
# outputs are committed, so tests need no NVIDIA tool; rerun this after editing src/.
#
#   <name>.cubin             ptxas -arch=sm_35 src/<name>.ptx  (one per source)
#   two_entries_rel.cubin    ptxas -arch=sm_35 -c  (relocatable: separate device function,
#                            relocations, .nv.callgraph)
#   saxpy_sm52.cubin         ptxas -arch=sm_52     (a foreign architecture to be refused)
#
# Damaged inputs (empty, truncated, non-ELF, sm_20 flags, corrupt section tables) are
# made in memory by sim-isa/tests/cubin.rs from these files.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ptxas=${PTXAS:-$root/.oracle/bin/ptxas}
[ -x "$ptxas" ] || { echo "build.sh: $ptxas not found; run scripts/fetch-oracle.sh first" >&2; exit 1; }

for src in "$here"/src/*.ptx; do
  name=$(basename "$src" .ptx)
  "$ptxas" -arch=sm_35 "$src" -o "$here/$name.cubin"
done
"$ptxas" -arch=sm_35 -c "$here/src/two_entries.ptx" -o "$here/two_entries_rel.cubin"
"$ptxas" -arch=sm_52 "$here/src/saxpy.ptx" -o "$here/saxpy_sm52.cubin"
echo "build.sh: rebuilt $(ls "$here"/*.cubin | wc -l) cubins in $here" >&2
