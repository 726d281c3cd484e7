#!/usr/bin/env bash
# Builds the Debian package of clift: target/debian/clift_<version>_<arch>.deb.
#   /usr/lib/<triplet>/clift/libclift.so   the ICD
#   /etc/OpenCL/vendors/clift.icd          its registration with the ICD loader (a conffile)
#   /usr/bin/cliftc                        the offline compiler
#   /usr/share/doc/clift/                  README, docs, copyright
# Prints the package's path. Needs dpkg-deb (Debian's dpkg) and cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v dpkg-deb >/dev/null || { echo "clift: dpkg-deb is needed (Debian's dpkg)"; exit 1; }
cargo build --release -q -p clift-icd -p cliftc

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
stage=target/debian/clift_${version}_${arch}
rm -rf "$stage"
libdir=/usr/lib/$triplet/clift
install -d "$stage/DEBIAN" "$stage$libdir" "$stage/etc/OpenCL/vendors" "$stage/usr/bin" \
  "$stage/usr/share/doc/clift/docs"
# Stripped of debug sections: the release build keeps line tables for backtraces only.
strip --strip-debug -o "$stage$libdir/libclift.so" target/release/libclift.so
strip -o "$stage/usr/bin/cliftc" target/release/cliftc
chmod 0644 "$stage$libdir/libclift.so"
echo "$libdir/libclift.so" > "$stage/etc/OpenCL/vendors/clift.icd"
install -m 0644 README.md "$stage/usr/share/doc/clift/"
install -m 0644 docs/*.md "$stage/usr/share/doc/clift/docs/"
cat > "$stage/usr/share/doc/clift/copyright" <<TXT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: clift

Files: *
License: Apache-2.0
 On Debian systems the full text of the license is in /usr/share/common-licenses/Apache-2.0.
TXT
echo /etc/OpenCL/vendors/clift.icd > "$stage/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<TXT
Package: clift
Version: $version
Architecture: $arch
Maintainer: clift developers <clift@example.invalid>
Installed-Size: $size
Depends: ocl-icd-libopencl1 | libopencl1, libc6, libgcc-s1
Provides: opencl-icd
Section: libs
Priority: optional
Homepage: https://example.invalid/clift
Description: OpenCL 1.2 driver for multicore CPUs
 clift is an OpenCL 1.2 (full profile) implementation for x86-64 and other CPUs,
 written in Rust. It installs as an ICD that the OpenCL ICD loader picks up, so
 existing OpenCL programs run on it unchanged. It compiles OpenCL C with its own
 frontend and Cranelift and runs work-groups on every core.
 .
 The package holds the ICD, its registration in /etc/OpenCL/vendors, and
 cliftc, an offline compiler that prints build logs, lists kernels, dumps
 compiler stages and writes program binaries.
TXT
dpkg-deb --root-owner-group --build "$stage" "$stage.deb" >/dev/null
echo "$stage.deb"
