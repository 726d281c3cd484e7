#!/usr/bin/env bash
# README's first command: build clift in release, register it for this user, and run a real
# OpenCL client (clinfo) on it through the system's ICD loader.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/debian-packages.sh ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo
command -v cargo >/dev/null || { echo "clift: Rust 1.95 or newer is needed (https://rustup.rs)"; exit 1; }

cargo build --release -p clift-icd
lib="$PWD/target/release/libclift.so"

# Per-user registration: a vendors directory holding only clift, named by OCL_ICD_VENDORS.
vendors="$PWD/target/release/vendors"
mkdir -p "$vendors"
echo "$lib" > "$vendors/clift.icd"
export OCL_ICD_VENDORS="$vendors"

clinfo
cat <<TXT

clift is built: $lib
To use it from your shell:      export OCL_ICD_VENDORS=$vendors
To install it for every user:   echo $lib | sudo tee /etc/OpenCL/vendors/clift.icd
TXT
