#!/usr/bin/env bash
# Packs what clift-bench needs to compare clift with PoCL on another machine that has neither
# the project's toolchain, nor PoCL, nor a package registry (the 16-core device machine):
# clift-bench and the release library (debug info stripped), the ICD loader's
# libOpenCL.so.1, and Debian's PoCL with the libraries it loads that such a machine may lack,
# as one xz archive, and run.sh.
#
#   scripts/bench-bundle.sh DIR          # DIR inside the checkout: list it in .git/info/exclude
#
# On the other machine (it needs /usr/bin/ld and a GCC's crt files, with which PoCL links
# each kernel, and a glibc at least as new as this machine's):
#   DIR/run.sh --markdown $OUT/table.md --svg $OUT/plot.svg      # clift-bench's options
#
# Two of LLVM's libraries are replaced by stubs, to stay within what a device call carries
# (64 MiB): libz3 (23 MB; the static analyzer's solver, never called by PoCL, and LLVM binds
# its functions lazily) and ICU's data (31 MB; libxml2 reads it only to convert text
# encodings, which PoCL never asks for). A PoCL that then fails still leaves clift measured:
# clift-bench says why PoCL is not measured.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/bench-bundle.sh DIR"; exit 2; }
cd "$(dirname "$0")/.."
dir="$1"
scripts/debian-packages.sh ocl-icd-libopencl1 pocl-opencl-icd xz-utils gcc binutils
# Two builds: with --bin, cargo would build only the binaries, not the ICD library.
cargo build --release -q -p clift-icd
cargo build --release -q -p clift-conformance --bin clift-bench
multiarch=/usr/lib/x86_64-linux-gnu
pocl=$(head -n1 /etc/OpenCL/vendors/pocl.icd)
[ -e "$multiarch/$pocl" ] && pocl="$multiarch/$pocl"
[ -e "$pocl" ] || { echo "clift: PoCL's library $pocl not found"; exit 2; }

. scripts/bundle-common.sh
start_bundle "$dir" bench clift-bench

# PoCL finds its kernel library and headers beside its own library (../../share/pocl), and
# its device modules in pocl/ beside it: the archive keeps that shape.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
lib="$stage/lib/x86_64-linux-gnu"
mkdir -p "$lib/pocl" "$stage/share/pocl"
cp -L "$pocl" "$lib/libpocl.so.2"
cp "$multiarch"/pocl/libpocl-devices-*.so "$lib/pocl/"
ldd "$pocl" "$multiarch"/pocl/libpocl-devices-*.so | awk '/=> \// { print $3 }' | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libmvec)\.so' |
  while read -r l; do cp -L "$l" "$lib/"; done
# The stubs: the same names, the symbols the others need from them and nothing else.
z3=$(basename "$(ls "$lib"/libz3.so.* 2>/dev/null | head -n1)")
if [ -n "$z3" ]; then
  echo 'int clift_bench_stub;' > "$stage/stub.c"
  gcc -shared -fPIC -o "$lib/$z3" -Wl,-soname,"$z3" "$stage/stub.c"
fi
icudata=$(basename "$(ls "$lib"/libicudata.so.* 2>/dev/null | head -n1)")
if [ -n "$icudata" ]; then
  symbol=$(nm -D --undefined-only "$lib"/libicuuc.so.* | awk '/icudt[0-9]+_dat/ { print $2; exit }')
  echo "const char $symbol[64] __attribute__((aligned(16))) = {0};" > "$stage/icudata.c"
  gcc -shared -fPIC -o "$lib/$icudata" -Wl,-soname,"$icudata" "$stage/icudata.c"
fi
rm -f "$stage"/*.c
cp -r /usr/share/pocl/include "$stage/share/pocl/"
# The kernel libraries of today's x86 servers (PoCL picks one by the CPU it runs on).
for isa in avx512 avx2; do
  cp "/usr/share/pocl/kernel-x86_64-pc-linux-gnu-$isa.bc" "$stage/share/pocl/"
done
tar -C "$stage" -cf - . | xz -6 -T0 > "$dir/pocl.tar.xz"

finish_bundle "$dir"

cat > "$dir/run.sh" <<'EOS'
#!/usr/bin/env bash
# clift-bench from this bundle (made by clift's scripts/bench-bundle.sh): arguments go to
# clift-bench; PoCL is unpacked to /tmp once per machine.
here="$(cd "$(dirname "$0")" && pwd)"
pocl=/tmp/clift-bench-pocl
lib=$pocl/lib/x86_64-linux-gnu
if [ ! -f $pocl/pocl.icd ]; then
  mkdir -p $pocl && tar -C $pocl -xJf "$here/pocl.tar.xz" || exit 3
  # Libraries the system has come from the system; the bundle's fill what it lacks.
  for l in libz.so.1 liblzma.so.5 libzstd.so.1 libgcc_s.so.1 libstdc++.so.6 libtinfo.so.6 \
           libbsd.so.0 libmd.so.0 libffi.so.8 libedit.so.2 libudev.so.1 libxml2.so.2; do
    if ldconfig -p | grep -qP "^\s+\Q$l\E\s"; then rm -f "$lib/$l"; fi
  done
  echo "$lib/libpocl.so.2" > $pocl/pocl.icd
fi
export LD_LIBRARY_PATH="$here:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export POCL_ICD=$pocl/pocl.icd CLIFT_LIBRARY="$here/libclift.so"
echo "clift-bench: bundle of build $(cat "$here/BUILD")" >&2
exec "$here/clift-bench" "$@"
EOS
chmod +x "$dir/run.sh"
echo "clift: bench bundle of build $build in $dir ($(du -sh "$dir" | cut -f1))"
