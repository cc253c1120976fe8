#!/usr/bin/env bash
# B1 with two agent jars, single JMH forks alternated round by round (each round starts with the
# other jar), so that a change is measured against the jar before it in the same minutes:
#
#   benchmarks/jmh_ab.sh ROUNDS OLD.jar NEW.jar 'AllocateRelease.pools$|1|-p size=64 -p liveSlices=0' ...
#
# Each spec is benchmark regex|threads|JMH parameters. Prints: round, spec, old|new, ns/op.
# Run from the repository root after `mvn -pl benchmarks package` (benchmarks/target/classes and lib).
set -u
R=$(cd "$(dirname "$0")/.." && pwd)
LIB=$(ls "$R"/benchmarks/target/lib/*.jar | tr '\n' ':')
rounds=$1; old=$2; new=$3; shift 3
csv=$(mktemp)
for r in $(seq 1 "$rounds"); do
  for spec in "$@"; do
    IFS='|' read -r bench threads params <<<"$spec"
    if (( r % 2 )); then order="old new"; else order="new old"; fi
    for which in $order; do
      jar=$old; [ "$which" = new ] && jar=$new
      # shellcheck disable=SC2086 # the JMH parameters are words
      java -cp "$R/benchmarks/target/classes:$LIB$jar" org.openjdk.jmh.Main "$bench" $params -t "$threads" \
        -f 1 -wi 3 -i 5 -rf csv -rff "$csv" >/dev/null 2>&1
      echo "$r $spec $which $(tail -1 "$csv" | cut -d, -f5)"
    done
  done
done
rm -f "$csv"
