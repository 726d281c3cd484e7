# Sourced by scripts/cts-bundle.sh and scripts/bench-bundle.sh, which pack a folder for a
# machine without the project's toolchain (run from the checkout's root).

# start_bundle DIR WHAT BINARY: DIR anew (only an earlier bundle, which has BUILD, is
# replaced), with the release library and target/release/BINARY (debug info stripped) and
# the ICD loader's libOpenCL.so.1. WHAT names the kind of bundle in the error.
start_bundle() {
  local dir=$1 what=$2 binary=$3 loader
  loader=$(ldconfig -p | awk '/libOpenCL\.so\.1 .*x86-64/ { print $NF; exit }')
  [ -n "$loader" ] || { echo "clift: libOpenCL.so.1 not found"; exit 2; }
  if [ -e "$dir" ] && [ ! -f "$dir/BUILD" ]; then
    echo "clift: $dir exists and is not a $what bundle; name a new folder"
    exit 2
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  cp target/release/libclift.so "target/release/$binary" "$dir/"
  strip --strip-debug "$dir/libclift.so" "$dir/$binary"
  cp -L "$loader" "$dir/libOpenCL.so.1"
}

# finish_bundle DIR: writes DIR/BUILD, the commit (with -dirty for uncommitted changes),
# and prints it; the bundle's build is in its variable `build`.
finish_bundle() {
  build=$(git rev-parse --short HEAD)
  git diff --quiet HEAD || build="$build-dirty"
  echo "$build" > "$1/BUILD"
}
