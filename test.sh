#!/usr/bin/env bash
# Runs every test: the memory engine, the shaded agent in forked JVMs, real DJL and ONNX Runtime,
# the CLI (with headless Chromium for the html page), the sample app in containers, and then the
# README's main command (./run-sample.sh).
#
# As root on Debian it first installs what the tests need from Debian packages (chromium, docker.io,
# debootstrap), starts a Docker engine with its state under /tmp, and builds the local JDK image;
# then nothing may be skipped (POOLS_REQUIRE_ALL=1). As another user, the browser and container
# tests are skipped, with the reason, where their programs are missing.
# The JDK is the one on PATH (or JAVA_HOME): run it once per JDK you support.
set -euo pipefail
cd "$(dirname "$0")"

started_docker=0
if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  if ! command -v chromium >/dev/null; then
    echo "== installing chromium"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends chromium >/dev/null
  fi
  if ! docker info >/dev/null 2>&1; then
    echo "== starting a Docker engine"
    containers/docker-start.sh
    started_docker=1
  fi
  containers/jdk-image.sh
  export POOLS_REQUIRE_ALL=1
fi
stop_docker() { if (( started_docker )); then containers/docker-stop.sh; fi; }
trap stop_docker EXIT

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
