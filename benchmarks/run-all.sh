#!/usr/bin/env bash
# Regenerates every figure of BENCHMARKS.md (B1 to B6, and the recording's own cost) on this machine;
# about 1 h 10 min on 2 cores.
# Raw output goes to benchmarks/results/. Run from anywhere; the machine should be otherwise idle.
#   benchmarks/run-all.sh            everything
#   benchmarks/run-all.sh b2         one part (b1 b2 b3 b4 b5 b6 cost)
set -euo pipefail
cd "$(dirname "$0")/.."
parts=${*:-b1 b2 b3 b4 b5 b6 cost}
mvn -B -q install -DskipTests
mkdir -p benchmarks/results
cp="benchmarks/target/classes:$(ls benchmarks/target/lib/*.jar | tr '\n' ':')agent/target/pools.jar"
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
       --add-exports java.base/sun.nio.ch=ALL-UNNAMED --add-exports java.base/jdk.internal.access=ALL-UNNAMED
       --add-exports java.base/jdk.internal.ref=ALL-UNNAMED)
for part in $parts; do
  case $part in
    b1)
      # Peers at every size, 1 and 2 threads; then pools with 10 000 live slices in its pages.
      for t in 1 2; do
        java -cp "$cp" org.openjdk.jmh.Main 'AllocateRelease' -p liveSlices=0 -t $t -rf json \
          -rff benchmarks/results/b1-threads$t.json | tee benchmarks/results/b1-threads$t.txt
      done
      java -cp "$cp" org.openjdk.jmh.Main 'AllocateRelease.pools$' -p liveSlices=10000 -t 1 -rf json \
        -rff benchmarks/results/b1-live-slices.json | tee benchmarks/results/b1-live-slices.txt
      ;;
    b2)
      # The sample app's trace, captured with report.trace; and a synthetic mix.
      sed 's#  file: measure.jfr#  file: ../../benchmarks/target/sample-app.jfr\n  trace: ../../benchmarks/target/sample-app.trace#' \
        sample-app/layouts/measure.yaml > benchmarks/target/trace.yaml
      (cd sample-app/target && java -javaagent:../../agent/target/pools.jar=../../benchmarks/target/trace.yaml \
        -Dai.djl.offline=true --enable-native-access=ALL-UNNAMED -jar sample-app.jar > /dev/null)
      java "${opens[@]}" -cp "$cp" dev.pools.bench.TraceReplay --synthetic benchmarks/target/synthetic.trace 20000
      { java "${opens[@]}" -cp "$cp" dev.pools.bench.TraceReplay benchmarks/target/sample-app.trace "256KiB:64KiB,4MiB:2MiB,16MiB:16MiB"
        java "${opens[@]}" -cp "$cp" dev.pools.bench.TraceReplay benchmarks/target/synthetic.trace "256KiB:16KiB,8MiB:1MiB,32MiB:8MiB"
      } | tee benchmarks/results/b2.txt
      # suggest --fit: page sizes chosen by replaying each trace (the sample app's recording gives the settings).
      for trace in sample-app synthetic; do
        java -jar agent/target/pools.jar suggest benchmarks/target/sample-app.jfr --fit benchmarks/target/$trace.trace
      done | tee benchmarks/results/b2-fit.txt
      ;;
    b3) python3 benchmarks/bench.py b3 5 | tee benchmarks/results/b3.txt ;;
    b4) python3 benchmarks/bench.py b4 15 | tee benchmarks/results/b4.txt ;;
    b5) python3 benchmarks/bench.py b5 5 | tee benchmarks/results/b5.txt ;;
    b6) python3 benchmarks/bench.py b6 5 | tee benchmarks/results/b6.txt ;;
    cost) python3 benchmarks/bench.py cost 600 | tee benchmarks/results/cost.txt ;;
    *) echo "unknown part $part (b1 b2 b3 b4 b5 b6 cost)"; exit 2 ;;
  esac
done
