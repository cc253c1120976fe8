#!/usr/bin/env bash
# Wall time of the Spark job without the agent (A) and with every executor under a layout (B),
# alternating A and B so that a machine's drift hits both alike. Each run is one driver with
# --rounds R: round 1 loads PyTorch in each executor, rounds 2..R are the steady state.
#   spark-app/ab-wall-time.sh [layout.yaml] [pairs] [rounds] [executor JVM options for B]
# The layout defaults to the capped one run-spark.sh wrote (run that first); 4 pairs, 4 rounds.
# Prints one line per run, then per side the median and the range (min..max) over the runs of:
# the first round, the median of the later rounds, all rounds together (the job's throughput),
# and the driver process from start to exit (executor start-up and exit included).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
layout=$(realpath "${1:-spark-app/target/run/capped.yaml}")
pairs=${2:-4}
rounds=${3:-4}
b_options=${4:-}

export SPARK_HOME=$root/spark-app/target/spark-home SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1
driver=(java -XX:+IgnoreUnrecognizedVMOptions --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
  -cp "$SPARK_HOME/conf:$root/spark-app/target/spark-app.jar:$SPARK_HOME/jars/*" dev.pools.spark.SparkInference)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

java -version 2>&1 | head -1
echo "B: every executor under $layout${b_options:+, with $b_options}"
for ((i = 1; i <= pairs; i++)); do
  for side in A B; do
    opts=(--rounds "$rounds")
    props=()
    if [[ $side == B ]]; then
      opts+=(--agent "$root/agent/target/pools.jar" --layout "$layout")
      [[ -n $b_options ]] && props=("-Dspark.executor.extraJavaOptions=$b_options")
    fi
    t0=$(date +%s%N)
    "${driver[0]}" "${props[@]}" "${driver[@]:1}" "${opts[@]}" >"$out/run.txt" 2>/dev/null
    t1=$(date +%s%N)
    first=$(sed -n 's/^job wall time: \([0-9]*\) ms.*/\1/p' "$out/run.txt")
    later=$(sed -n 's/^round [0-9]* wall time: \([0-9]*\) ms.*/\1/p' "$out/run.txt" | sort -n |
      awk '{v[NR]=$1} END {print (NR % 2 ? v[(NR+1)/2] : int((v[NR/2]+v[NR/2+1])/2))}')
    all=$((first + $(sed -n 's/^round [0-9]* wall time: \([0-9]*\) ms.*/\1/p' "$out/run.txt" | paste -sd+ | bc)))
    process=$(((t1 - t0) / 1000000))
    echo "$side $i  first round ${first} ms  later rounds (median) ${later} ms  all rounds ${all} ms  process ${process} ms  $(grep '^result:' "$out/run.txt")"
    echo "$first $later $all $process" >>"$out/$side"
    grep '^result:' "$out/run.txt" >>"$out/results"
  done
done

echo
for side in A B; do
  for col in 1 2 3 4; do
    cut -d' ' -f$col "$out/$side" | sort -n |
      awk -v side=$side -v col=$col 'BEGIN {split("first round,later rounds,all rounds,process", name, ",")}
        {v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
        printf "%s %-13s median %6d ms  range %d..%d ms (%d runs)\n", side, name[col], m, v[1], v[NR], NR}'
  done
done
if [[ $(sort -u "$out/results" | wc -l) != 1 ]]; then
  echo "FAILED: the runs did not all give the same result" >&2
  exit 1
fi
