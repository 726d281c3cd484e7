#!/usr/bin/env bash
# Builds the Debian package, installs it, uses it as a user would, and removes it:
#  1. into a fresh, empty dpkg root: every file lands where the package says, and a purge
#     leaves nothing behind;
#  2. onto this machine (root only, without clift's package already installed): clinfo lists
#     the clift platform from /etc/OpenCL/vendors, the C example runs on it through the
#     installed .icd, cliftc runs from /usr/bin; then the package is purged and its files,
#     the .icd included, are gone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/debian-packages.sh ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo gcc libc6-dev
deb=$(scripts/package-deb.sh | tail -n 1)
echo "package: $deb"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Provides\|Depends\):/  \1:/p'
files=$(dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$')
fail() { echo "test-deb: FAIL: $*"; exit 1; }

echo "== 1. a fresh root"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
# The fresh root has none of the dependencies installed; only the files are checked here.
dpkg --root="$root" --force-depends --force-not-root --log=/dev/null -i "$deb" >/dev/null 2>&1
for f in $files; do [ -e "$root$f" ] || fail "$f not installed"; done
icd=$(cat "$root/etc/OpenCL/vendors/clift.icd")
[ -f "$root$icd" ] || fail "clift.icd names $icd, which the package does not hold"
dpkg --root="$root" --force-not-root --log=/dev/null --purge clift >/dev/null
left=$(find "$root" -type f -not -path "$root/var/lib/dpkg/*")
[ -z "$left" ] || fail "left after purge: $left"
echo "   $(echo "$files" | wc -l) files installed where they belong; purge left nothing"

echo "== 2. this machine"
if [ "$(id -u)" -ne 0 ]; then echo "   (not root: skipping the system install)"; exit 0; fi
if dpkg-query -W -f='${Status}' clift 2>/dev/null | grep -q "install ok installed"; then
  fail "a clift package is already installed here; remove it first"
fi
dpkg -i "$deb" >/dev/null
clinfo -l | tee /dev/stderr | grep -q "Platform #.*: clift" || fail "clinfo does not list clift"
work=$(mktemp -d)
gcc -O2 examples/c/vector_add.c -lOpenCL -o "$work/vector_add"
mkdir "$work/vendors"
cp /etc/OpenCL/vendors/clift.icd "$work/vendors/"
OCL_ICD_VENDORS="$work/vendors" "$work/vector_add" | tee "$work/out"
grep -q "platform: clift" "$work/out" || fail "the C example did not run on clift"
printf 'kernel void k(global int *o) { o[0] = N; }\n' > "$work/k.cl"
/usr/bin/cliftc --kernels -D N=1 "$work/k.cl" | grep -q "^kernel k" || fail "cliftc"
dpkg --purge clift >/dev/null
for f in $files; do [ ! -e "$f" ] || fail "$f left after purge"; done
clinfo -l | grep -q "clift" && fail "clinfo still lists clift"
rm -rf "$work"
echo "test-deb: installed, used and removed cleanly"
