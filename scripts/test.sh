#!/usr/bin/env bash
# The whole test suite, from a fresh clone: fetches NVIDIA's sm_35 oracle tools
# (cached in .oracle/, git-ignored), then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/fetch-oracle.sh
cargo test --workspace --release "$@"
