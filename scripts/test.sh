#!/usr/bin/env bash
# The whole test suite, from a fresh clone: fetches NVIDIA's sm_35 oracle tools
# (cached in .oracle/, git-ignored), then runs every test of the workspace and
# the fuzz targets' smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-oracle.sh
# tmux, for the pipeline viewer's terminal test (sim-cli/tests/viewer.rs, which
# skips with a note where it is missing): a small package, installed when we
# may (root with apt), never a reason to fail.
if ! command -v tmux >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq tmux >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq tmux >/dev/null 2>&1; } \
        || echo "note: tmux could not be installed; the viewer's terminal test will skip"
fi
cargo test --workspace --release "$@"
# The code's own documentation: every intra-doc link resolves, private items
# included (they may be linked from public ones: the docs are for developers).
RUSTDOCFLAGS="-D warnings -A rustdoc::private_intra_doc_links" \
    cargo doc --workspace --no-deps --document-private-items --quiet
# Every fuzz target for a short smoke time (scripts/fuzz-smoke.sh: builds
# them, installing cargo-fuzz if it is missing; fails on any crash).
# FUZZ_SMOKE=0 skips it.
[ "${FUZZ_SMOKE:-1}" = 0 ] || bash scripts/fuzz-smoke.sh
