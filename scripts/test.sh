#!/usr/bin/env bash
# README's second command: the whole test suite (unit tests, the header cross-check, and the
# conformance suite through the real ICD loader).
set -euo pipefail
cd "$(dirname "$0")/.."
# The loader and headers the tests use; PoCL is the differential oracle of later suites.
scripts/debian-packages.sh ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo pocl-opencl-icd
command -v cargo >/dev/null || { echo "clift: Rust 1.95 or newer is needed (https://rustup.rs)"; exit 1; }

# The conformance suite loads target/debug/libclift.so through the loader.
cargo build -p clift-icd
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast
else
  cargo test --workspace --no-fail-fast
fi

# The kernels with barriers again, every one through the barrier fallback (resumable
# work-item functions) instead of the work-group planner: both must give the same results.
if cargo nextest --version >/dev/null 2>&1; then
  CLIFT_RESUMABLE_BARRIERS=1 cargo nextest run -p clift-conformance --test kernels --test basic --test atomics \
    --test vectors --no-fail-fast
  CLIFT_RESUMABLE_BARRIERS=1 cargo nextest run -p clift-compiler --test run_kernels \
    --test run_aggregates --test run_barrier_fallback --no-fail-fast
else
  CLIFT_RESUMABLE_BARRIERS=1 cargo test -p clift-conformance --test kernels --test basic --test atomics \
    --test vectors --no-fail-fast
  CLIFT_RESUMABLE_BARRIERS=1 cargo test -p clift-compiler --test run_kernels \
    --test run_aggregates --test run_barrier_fallback --no-fail-fast
fi
