#!/usr/bin/env bash
# Runs every test: the memory engine, the shaded agent in forked JVMs, real DJL and ONNX Runtime,
# the CLI (with headless Chromium for the html page), the sample app in containers, and then the
# README's main command (./run-sample.sh). It only tests: containers/provision.sh installs and
# starts what the browser and container tests need.
#
# As root every test must run (POOLS_REQUIRE_ALL=1: a missing browser or Docker engine fails the
# run instead of skipping); as another user those tests skip, with the reason.
# The JDK is the one on PATH (or JAVA_HOME): run it once per JDK you support.
set -euo pipefail
cd "$(dirname "$0")"
if [[ $(id -u) == 0 ]]; then
  export POOLS_REQUIRE_ALL=1
fi

java -version 2>&1 | head -1
mvn -B verify

# The README's main command, as a user runs it: it must end with the capped run's report, with no
# fallback and no refusal.
echo "== ./run-sample.sh"
if ! out=$(./run-sample.sh 2>&1) || ! sed -n '/^== 3\./,$p' <<<"$out" | grep -Eq '^fallbacks: +0 \(0 B\) +refusals: 0$'; then
  echo "$out"
  echo "run-sample.sh failed, or its capped run fell back or refused" >&2
  exit 1
fi
echo "$out" | tail -n 12
