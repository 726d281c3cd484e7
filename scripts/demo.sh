#!/usr/bin/env bash
# README's first command: build clift in release, register it for this user, and run real
# OpenCL programs on it through the system's ICD loader: clinfo, a C program, and a Rust
# program that renders a picture.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/debian-packages.sh ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo gcc libc6-dev
command -v cargo >/dev/null || { echo "clift: Rust 1.95 or newer is needed (https://rustup.rs)"; exit 1; }

cargo build --release -p clift-icd
cargo build --release -p clift-examples
lib="$PWD/target/release/libclift.so"

# Per-user registration: a vendors directory holding only clift, named by OCL_ICD_VENDORS.
vendors="$PWD/target/release/vendors"
mkdir -p "$vendors"
echo "$lib" > "$vendors/clift.icd"
export OCL_ICD_VENDORS="$vendors"

clinfo
echo
echo "== a C program (examples/c/vector_add.c), built with gcc against the ICD loader"
gcc -O2 examples/c/vector_add.c -lOpenCL -o target/release/vector_add
target/release/vector_add
echo
echo "== a Rust program (examples/src/bin/mandelbrot.rs) rendering a picture"
picture="$PWD/target/release/mandelbrot.png"
target/release/mandelbrot "$picture"
cat <<TXT

clift is built: $lib
The demo's picture: $picture
To use it from your shell:      export OCL_ICD_VENDORS=$vendors
To install it for every user:   echo $lib | sudo tee /etc/OpenCL/vendors/clift.icd
TXT
