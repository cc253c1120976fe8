#!/usr/bin/env bash
# Install docker.io + debootstrap (if missing) and start dockerd in the background with all
# state under $DOCKER_TMP. Idempotent: returns at once if the daemon already answers.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/env.sh"
t0=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms"; }

need=()
command -v dockerd     >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if (( ${#need[@]} )); then
  export DEBIAN_FRONTEND=noninteractive
  # Keep the package's postinst from starting a daemon of its own (no systemd here anyway).
  added_policy=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; added_policy=1
  fi
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
  if (( added_policy )); then rm -f /usr/sbin/policy-rc.d; fi
  echo "installed: ${need[*]} ($(elapsed))"
fi
DOCKER_BIN=${DOCKER_BIN:-/usr/bin/docker}
[[ -x $DOCKER_BIN ]] || DOCKER_BIN=/usr/bin/docker

if "$DOCKER_BIN" info >/dev/null 2>&1; then
  echo "dockerd already answers on $DOCKER_SOCK"; exit 0
fi

mkdir -p "$DOCKER_TMP/data" "$DOCKER_TMP/exec"
# A dockerd of ours that is alive but does not answer (hung, or still dying after a SIGKILL):
# stop it, or the new one fails with "pid file found, ensure docker is not running".
if [[ -s $DOCKER_TMP/dockerd.pid ]]; then
  old=$(cat "$DOCKER_TMP/dockerd.pid")
  if [[ $(cat "/proc/$old/comm" 2>/dev/null) == dockerd ]]; then
    echo "stopping unresponsive dockerd $old"
    kill -TERM "$old" 2>/dev/null || true
    for _ in $(seq 1 100); do pid_alive "$old" || break; sleep 0.2; done
    [[ -d /proc/$old ]] && kill -KILL "$old" 2>/dev/null || true
  fi
  for _ in $(seq 1 50); do pid_alive "$old" || break; sleep 0.2; done
  rm -f "$DOCKER_TMP/dockerd.pid"
fi
# Same for the containerd that dockerd supervises: a stale (or zombie) pid in its pidfile makes
# the new dockerd wait for that containerd's socket and fail with "timeout waiting for containerd to start".
cpidf="$DOCKER_TMP/exec/containerd/containerd.pid"
if [[ -s $cpidf ]]; then
  old=$(cat "$cpidf")
  if pid_alive "$old" && [[ $(cat "/proc/$old/comm" 2>/dev/null) == containerd ]]; then
    echo "stopping orphaned containerd $old"; kill -TERM "$old" 2>/dev/null || true
    for _ in $(seq 1 50); do pid_alive "$old" || break; sleep 0.2; done
    pid_alive "$old" && kill -KILL "$old" 2>/dev/null || true
  fi
  rm -f "$cpidf"
fi
start_dockerd() {  # $1 = storage driver
  : > "$DOCKER_TMP/dockerd.log"
  # --iptables=false/--ip-forward=false/--bridge=none: leave the host firewall, sysctls and
  # links alone; containers get loopback only (use --network host if a test needs the host).
  setsid nohup dockerd \
    --host "unix://$DOCKER_SOCK" \
    --data-root "$DOCKER_TMP/data" \
    --exec-root "$DOCKER_TMP/exec" \
    --pidfile "$DOCKER_TMP/dockerd.pid" \
    --storage-driver "$1" \
    --iptables=false --ip-forward=false --ip-masq=false --bridge=none \
    ${DOCKERD_EXTRA_ARGS:-} \
    >> "$DOCKER_TMP/dockerd.log" 2>&1 < /dev/null &
  local pid=$! i
  for i in $(seq 1 300); do          # up to 60 s
    "$DOCKER_BIN" info >/dev/null 2>&1 && return 0
    pid_alive "$pid" || return 1
    sleep 0.2
  done
  kill "$pid" 2>/dev/null || true; return 1
}

driver=${DOCKER_STORAGE_DRIVER:-overlay2}
if ! start_dockerd "$driver"; then
  echo "dockerd failed with storage driver $driver:"; grep -v 'level=info' "$DOCKER_TMP/dockerd.log" | tail -n 15
  # Fall back to vfs (slow: full copy of the image per container) only when the graph driver is the problem.
  if [[ $driver != vfs ]] && grep -qiE 'graphdriver|storage.driver|driver not supported|wrong filesystem' "$DOCKER_TMP/dockerd.log"; then
    echo "retrying with --storage-driver vfs"; driver=vfs
    start_dockerd vfs || { tail -n 30 "$DOCKER_TMP/dockerd.log"; exit 1; }
  else
    exit 1
  fi
fi
echo "dockerd up: pid $(cat "$DOCKER_TMP/dockerd.pid"), storage $driver, socket $DOCKER_SOCK, log $DOCKER_TMP/dockerd.log ($(elapsed))"
