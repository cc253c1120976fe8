#!/usr/bin/env bash
# The loop of run-sample.sh on a Spark cluster: DJL inference in the executors of local-cluster[2,1,1024]
# (two executors, each a JVM of its own), the agent on the executors only.
#   0. the job without the agent: its result line is the reference;
#   1. measure: every executor under growable pools, each writing measure-<pid>.jfr;
#   2. suggest: all the executors' recordings merged into one capped layout;
#   3. the job again, every executor under the caps: the same result, no fallback, no refusal.
# Needs a JDK (17 or later) and Maven; Spark, DJL and PyTorch come from Maven Central. The executors
# run on JAVA_HOME's java if set, else on the driver's.
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD

mvn -B -q install -DskipTests

export SPARK_HOME=$root/spark-app/target/spark-home SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1
work=$root/spark-app/target/run
# The Workers' work/ folders (executor logs, copies of the app jar) and the executors' temporary files
# stay under SPARK_HOME; start from clean ones.
rm -rf "$work" "$SPARK_HOME/work" "$SPARK_HOME/tmp" "$SPARK_HOME/local"
mkdir -p "$work"
pools=$root/agent/target/pools.jar
# The driver gets what Spark gives its executors so that JDK 24 and later do not warn about Spark's and
# Hadoop's native and Unsafe calls (flags an older JDK does not know are ignored).
driver=(java -XX:+IgnoreUnrecognizedVMOptions --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
  -cp "$SPARK_HOME/conf:$root/spark-app/target/spark-app.jar:$SPARK_HOME/jars/*" dev.pools.spark.SparkInference)

# Runs the driver with the given options; its output goes to the terminal and to $work/<name>.out.
job() {
  local name=$1
  shift
  "${driver[@]}" "$@" | tee "$work/$name.out"
}
line() { grep -m1 "^$1" "$work/$2.out"; }

echo "== 0. the job without the agent"
job plain

echo
echo "== 1. measure: every executor under growable pools (spark-app/layouts/measure.yaml)"
# An executor runs in a work folder of Spark's: its recording needs an absolute path, one per JVM (%p).
sed "s#^  file: .*#  file: $work/measure-%p.jfr#" spark-app/layouts/measure.yaml >"$work/measure.yaml"
job measure --agent "$pools" --layout "$work/measure.yaml"
measured=("$work"/measure-*.jfr)
echo
java -jar "$pools" report "${measured[@]}"

echo
echo "== 2. suggest: ${#measured[@]} executors' recordings become one capped layout ($work/capped.yaml)"
java -jar "$pools" suggest "${measured[@]}" --report-file "$work/capped-%p.jfr" -o "$work/capped.yaml"
cat "$work/capped.yaml"

echo
echo "== 3. the job again, every executor under the caps"
job capped --agent "$pools" --layout "$work/capped.yaml"
capped=("$work"/capped-*.jfr)
echo
java -jar "$pools" report "${capped[@]}" | tee "$work/capped-report.txt"

echo
echo "== summary"
plain=$(line result: plain)
under_caps=$(line result: capped)
echo "without the agent:           $plain"
echo "capped (${#capped[@]} executor JVMs):    $under_caps"
echo "job wall time without agent: $(line 'job wall time:' plain | sed 's/^job wall time: //; s/ (.*//')"
echo "job wall time capped:        $(line 'job wall time:' capped | sed 's/^job wall time: //; s/ (.*//')"
clean=$(grep -Ec '^fallbacks: +0 \(0 B\) +refusals: 0$' "$work/capped-report.txt" || true)
status=0
if [[ $plain != "$under_caps" ]]; then
  echo "FAILED: the capped run's result differs from the run without the agent" >&2
  status=1
fi
if [[ $clean != "${#capped[@]}" ]]; then
  echo "FAILED: $((${#capped[@]} - clean)) of ${#capped[@]} capped recordings show fallbacks or refusals" >&2
  status=1
fi
if ((status == 0)); then
  echo "same result, and no fallback or refusal in any of the ${#capped[@]} capped recordings"
fi
exit $status
