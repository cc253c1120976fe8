#!/usr/bin/env bash
# Stops the dockerd that docker-start.sh started. Idempotent.
# --purge also deletes $DOCKER_TMP (images included; the rootfs tarball cache stays).
set -uo pipefail
. "$(dirname "$(readlink -f "$0")")/env.sh"
pidf="$DOCKER_TMP/dockerd.pid"
if [[ -s $pidf ]] && pid=$(cat "$pidf") && pid_alive "$pid"; then
  kill -TERM "$pid"                 # dockerd stops its containers and its containerd
  for _ in $(seq 1 150); do pid_alive "$pid" || break; sleep 0.2; done
  if pid_alive "$pid"; then echo "dockerd $pid still alive after 30 s, SIGKILL"; kill -KILL "$pid"; fi
  echo "dockerd $pid stopped"
else
  echo "dockerd not running"
fi
rm -f "$pidf"
# Leftover mounts (e.g. after a SIGKILL) under our folder only, deepest first.
awk -v d="$DOCKER_TMP/" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
if [[ ${1:-} == --purge ]]; then rm -rf --one-file-system "$DOCKER_TMP"; echo "removed $DOCKER_TMP"; fi
