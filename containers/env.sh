# Shared settings for the container scripts (source this file).
# Override any of these via the environment.
: "${DOCKER_TMP:=/tmp/pools-docker}"                 # data root, exec root, pidfile, log
: "${DOCKER_SOCK:=/var/run/docker.sock}"              # default socket: docker CLI + Testcontainers find it without env
: "${POOLS_CACHE:=/var/cache/pools-ci}"               # rootfs tarball cache
: "${POOLS_JDK_IMAGE:=pools-jdk17:local}"
export DOCKER_TMP DOCKER_SOCK POOLS_CACHE POOLS_JDK_IMAGE
export DOCKER_HOST="unix://${DOCKER_SOCK}"
# Prefer Debian's docker CLI (20.10) if present; any newer client also works (API negotiation).
DOCKER_BIN=$(command -v /usr/bin/docker || command -v docker || true)
# True if the pid exists and is not a zombie (PID 1 on this VM reaps orphans only lazily).
pid_alive() { [[ -d /proc/$1 ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }
