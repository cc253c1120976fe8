#!/usr/bin/env bash
# The main job: build pools.jar and the sample application, then run the loop the product is for:
#   1. measure the sample app under growable pools,
#   2. turn the measurement into a capped layout,
#   3. run again under the caps, and report.
# Needs a JDK (17 or later) and Maven; everything else comes from Maven Central.
set -euo pipefail
cd "$(dirname "$0")"

mvn -B -q install -DskipTests

work=sample-app/target/run
rm -rf "$work"
mkdir -p "$work"
cd "$work"
pools=../../../agent/target/pools.jar
app=../sample-app.jar
flags=(-Dai.djl.offline=true --enable-native-access=ALL-UNNAMED)

echo "== 1. measure: the sample app under growable pools (sample-app/layouts/measure.yaml)"
java -javaagent:"$pools"=../../layouts/measure.yaml "${flags[@]}" -jar "$app"
echo
java -jar "$pools" report measure.jfr

echo
echo "== 2. suggest: the measured peaks become caps ($work/capped.yaml)"
java -jar "$pools" suggest measure.jfr --report-file capped.jfr -o capped.yaml
cat capped.yaml

echo
echo "== 3. run again under the caps"
java -javaagent:"$pools"=capped.yaml "${flags[@]}" -jar "$app"
echo
java -jar "$pools" report capped.jfr
java -jar "$pools" html capped.jfr -o capped.html
