#!/usr/bin/env bash
# Provisions this machine for every test: as root on Debian, installs Chromium (the html page's
# browser test), installs and starts a Docker engine with its state under /tmp, and builds the
# local JDK image the container tests run in (images cannot be pulled here). Idempotent: what is
# there already is kept. As another user, or off Debian, it says so and does nothing: the browser
# and container tests then skip, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(id -u) != 0 ]] || ! command -v apt-get >/dev/null; then
  echo "provision: not root on Debian; nothing installed (the browser and container tests will skip)"
  exit 0
fi
if ! command -v chromium >/dev/null; then
  echo "== installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends chromium >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  echo "== starting a Docker engine"
  containers/docker-start.sh
fi
containers/jdk-image.sh
