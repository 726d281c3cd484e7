#!/usr/bin/env bash
# Runs clift's fuzz targets with libFuzzer: each for SECONDS (default 600), JOBS processes
# at a time (default 1), starting from the kept corpora (corpora/<target>, read only) and
# the working corpus (corpus/<target>, where new inputs go). Crashes land in
# artifacts/<target>/. Logs: logs/<target>.log (the last "#N" line is the execution count).
#
#   fuzz/run.sh [SECONDS] [JOBS] [TARGET...]
#
# Afterwards, `cargo +nightly fuzz cmin <target> corpus/<target>` and copying the result
# into corpora/<target> keeps a minimized corpus that CI replays (fuzz-targets/tests).
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
jobs=${2:-1}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(preprocess parse sema compile api)
bin=${FUZZ_BIN:-target/x86_64-unknown-linux-gnu/release}
mkdir -p logs
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  dict=()
  par=()
  [ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
  [ "$t" = api ] || dict=(-dict=opencl.dict)
  ASAN_OPTIONS="detect_leaks=0:detect_odr_violation=0:allocator_may_return_null=1" \
  nice -n 10 "$bin/$t" "corpus/$t" "corpora/$t" "${dict[@]}" \
    -artifact_prefix="artifacts/$t/" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=3072 -max_len=65536 "${par[@]}" -print_final_stats=1 \
    > "logs/$t.log" 2>&1 &
done
wait
for t in "${targets[@]}"; do
  echo "$t: $(grep -ao 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" fuzz-*.log 2>/dev/null | tail -1)"
done
