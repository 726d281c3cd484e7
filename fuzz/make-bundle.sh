#!/usr/bin/env bash
# Packs the built fuzz binaries (cargo +nightly fuzz build -O -a), the kept corpora, the
# dictionary and a run script into fuzz/bundle/ (ignored by git), to run on a machine with
# more cores and no Rust toolchain: x86-64 Linux with glibc and libstdc++.
#
#   bash fuzz/bundle/run.sh SECONDS JOBS OUTDIR   (on that machine)
set -euo pipefail
cd "$(dirname "$0")"
bin=target/x86_64-unknown-linux-gnu/release
rm -rf bundle && mkdir -p bundle/bin
for t in preprocess parse sema compile api; do
  strip --strip-debug -o "bundle/bin/$t" "$bin/$t"
  xz -T0 -6 "bundle/bin/$t"
done
tar -cJf bundle/corpora.tar.xz corpora
cp opencl.dict bundle/
cat > bundle/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs every target for SECONDS with JOBS libFuzzer workers each, from the kept corpora;
# writes to OUTDIR: <target>.log (the summary), artifacts/<target>/ (crashes, timeouts),
# new-corpus-<target>.tar.xz (inputs found, for `cargo fuzz cmin` back home) and
# executions.txt (executions per target and in total). JOBS_<target> (for example JOBS_api=6)
# gives one target its own number of workers.
set -u
cd "$(dirname "$0")"
secs=${1:-480}; jobs=${2:-3}; out=${3:-${OUT:-/tmp/clift-fuzz}}
mkdir -p "$out" work
for f in bin/*.xz; do
  t=$(basename "$f" .xz)
  [ -x "work/$t" ] || { xz -dc "$f" > "work/$t"; chmod +x "work/$t"; }
done
[ -d work/corpora ] || tar -xJf corpora.tar.xz -C work
targets=(preprocess parse sema compile api)
for t in "${targets[@]}"; do
  mkdir -p "work/run-$t/corpus" "$out/artifacts/$t"
  dict=(-dict=../../opencl.dict)
  [ "$t" = api ] && dict=()
  own="JOBS_$t"; n=${!own:-$jobs}
  (cd "work/run-$t" && ASAN_OPTIONS=detect_leaks=0:detect_odr_violation=0:allocator_may_return_null=1 \
    "../$t" corpus "../corpora/$t" "${dict[@]}" -max_total_time="$secs" -timeout=20 \
    -rss_limit_mb=4096 -max_len=65536 -jobs="$n" -workers="$n" \
    -artifact_prefix="$out/artifacts/$t/" -print_final_stats=1 > "$out/$t.log" 2>&1) &
done
wait
total=0
for t in "${targets[@]}"; do
  n=$(cat "work/run-$t"/fuzz-*.log 2>/dev/null | grep -a 'stat::number_of_executed_units' \
      | awk '{s += $2} END {print s + 0}')
  crashes=$(ls "$out/artifacts/$t" | wc -l)
  echo "$t: $n executions, $crashes artifacts" | tee -a "$out/executions.txt"
  total=$((total + n))
  cp "work/run-$t"/fuzz-*.log "$out/artifacts/$t/" 2>/dev/null
  tar -cJf "$out/new-corpus-$t.tar.xz" -C "work/run-$t" corpus
done
echo "total: $total executions in $secs s" | tee -a "$out/executions.txt"
RUN
chmod +x bundle/run.sh
du -sh bundle bundle/*
