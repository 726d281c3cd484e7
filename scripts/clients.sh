#!/usr/bin/env bash
# Real OpenCL clients on clift and, side by side, on PoCL: clinfo, clpeak, and PyOpenCL's own
# test suite (from the source distribution of the installed python3-pyopencl's version).
# Usage: scripts/clients.sh [clift|pocl|both]   (default: both)
# Needs network access once, to fetch PyOpenCL's sources from PyPI (cached in target/).
set -euo pipefail
cd "$(dirname "$0")/.."
which_ones="${1:-both}"
scripts/debian-packages.sh ocl-icd-libopencl1 clinfo clpeak pocl-opencl-icd \
  python3-pyopencl python3-pytest python3-numpy curl ca-certificates

cargo build --release -p clift-icd
vendors="$PWD/target/release/vendors"
mkdir -p "$vendors"
echo "$PWD/target/release/libclift.so" > "$vendors/clift.icd"

# PyOpenCL's tests ship in its sdist only: fetch the one matching the installed module.
version=$(/usr/bin/python3 -c 'import pyopencl; print(pyopencl.VERSION_TEXT)')
src="$PWD/target/pyopencl-$version"
if [ ! -d "$src/test" ]; then
  url=$(curl -fsSL "https://pypi.org/simple/pyopencl/" |
    grep -o "https://files.pythonhosted.org/[^\"#]*pyopencl-$version.tar.gz" | head -1)
  curl -fsSL "$url" | tar xz -C target
fi

run_on() { # name vendors-path
  local name=$1
  export OCL_ICD_VENDORS=$2
  echo "== $name: clinfo"
  clinfo --list
  echo "== $name: clpeak"
  clpeak
  echo "== $name: PyOpenCL $version test suite"
  (cd "$src/test" && /usr/bin/python3 -m pytest -q -p no:cacheprovider -rsx . | tail -15)
}

case "$which_ones" in
  clift) run_on clift "$vendors" ;;
  pocl) run_on PoCL /etc/OpenCL/vendors/pocl.icd ;;
  *) run_on clift "$vendors"; run_on PoCL /etc/OpenCL/vendors/pocl.icd ;;
esac
