#!/usr/bin/env bash
# The Khronos CTS against clift in one command: builds the release library and cts-run, then
# runs every OpenCL 1.2 suite of CTS_BIN_DIR (default: ../shared/cts, the prebuilt CTS beside
# the checkout) through the ICD loader. Arguments go to cts-run, for example:
#   scripts/cts.sh --only test_basic,test_api        # two suites
#   scripts/cts.sh --jobs 8 --compute-units 2        # eight suites at once, two cores each
#   scripts/cts.sh --update docs/CONFORMANCE.md      # write the table into the docs
#   scripts/cts.sh --fullsize docs/cts-fullsize.tsv --budget 480 --jobs 8 --compute-units 2 \
#       --update docs/CONFORMANCE.md                 # full-size math and conversions, 8 min more
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/debian-packages.sh ocl-icd-libopencl1
cts="${CTS_BIN_DIR:-../shared/cts}"
[ -d "$cts" ] || { echo "clift: no CTS build at $cts (set CTS_BIN_DIR)"; exit 2; }
# Two builds: with --bin, cargo would build only the binaries, not the ICD library.
cargo build --release -q -p clift-icd
cargo build --release -q -p clift-conformance --bin cts-run
exec target/release/cts-run "$cts" "$@"
