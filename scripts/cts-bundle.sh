#!/usr/bin/env bash
# Packs what the Khronos CTS needs to run against clift on another machine that has neither
# the project's toolchain nor a package registry (the 16- to 64-core device machines): the
# release library and cts-run (debug info stripped), the ICD loader's libOpenCL.so.1, the
# prebuilt CTS, the full-size results file without its cut-off rows, and run.sh.
#
#   scripts/cts-bundle.sh DIR          # DIR inside the checkout: list it in .git/info/exclude
#
# On the other machine (results, logs and the results file go to $OUT when it is set):
#   DIR/run.sh --jobs 16 --compute-units 2                       # the quick suites
#   DIR/run.sh --fullsize --only "remquo double" --jobs 1 --compute-units 64 \
#       --cts-threads 64 --budget 500                            # full-size shards
# Back here, take the shards it ran into the committed file and rewrite the summary:
#   target/release/cts-run ../shared/cts --fullsize docs/cts-fullsize.tsv \
#       --merge $OUT/cts-fullsize.tsv --budget 0 --update docs/CONFORMANCE.md
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/cts-bundle.sh DIR"; exit 2; }
cd "$(dirname "$0")/.."
dir="$1"
cts="${CTS_BIN_DIR:-../shared/cts}"
[ -d "$cts" ] || { echo "clift: no CTS build at $cts (set CTS_BIN_DIR)"; exit 2; }
scripts/debian-packages.sh ocl-icd-libopencl1
# Two builds: with --bin, cargo would build only the binaries, not the ICD library.
cargo build --release -q -p clift-icd
cargo build --release -q -p clift-conformance --bin cts-run
. scripts/bundle-common.sh
start_bundle "$dir" CTS cts-run
cp -r "$cts" "$dir/cts"
chmod -R u+w "$dir/cts"
# Rows cut off by a budget or a timeout may keep those shards from starting again.
grep -v -P '\t(incomplete|timeout)\t' docs/cts-fullsize.tsv > "$dir/cts-fullsize.tsv"
finish_bundle "$dir"

cat > "$dir/run.sh" <<'EOS'
#!/usr/bin/env bash
# cts-run from this bundle (made by clift's scripts/cts-bundle.sh): arguments go to cts-run;
# a bare --fullsize uses the bundle's results file, and the rows carry the bundled build.
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
args=()
fullsize=0
for a in "$@"; do
  args+=("$a")
  if [ "$a" = --fullsize ]; then
    fullsize=1
    args+=("$here/cts-fullsize.tsv")
  fi
done
extra=()
if [ $fullsize = 1 ]; then
  extra=(--build "$(cat "$here/BUILD")")
fi
if [ -n "${OUT:-}" ]; then
  extra+=(--logs "$OUT/logs")
fi
"$here/cts-run" "$here/cts" "${args[@]}" "${extra[@]}"
status=$?
if [ -n "${OUT:-}" ]; then
  cp "$here/cts-fullsize.tsv" "$OUT/"
fi
exit $status
EOS
chmod +x "$dir/run.sh"
echo "clift: CTS bundle of build $build in $dir ($(du -sh "$dir" | cut -f1))"
