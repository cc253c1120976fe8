#!/usr/bin/env bash
# Build $POOLS_JDK_IMAGE (Debian bookworm minbase + openjdk-17-jre-headless) without pulling:
# debootstrap -> chroot apt-get -> tar -> docker import. Idempotent and cached:
#   1. image already in the daemon (with the same recipe label)  -> nothing to do
#   2. rootfs tarball in $POOLS_CACHE                             -> docker import only
#   3. otherwise debootstrap from the machine's own apt mirror, then 2.
set -euo pipefail
. "$(dirname "$(readlink -f "$0")")/env.sh"
RECIPE=v1     # bump when the recipe changes: invalidates both cache levels
IMAGE=$POOLS_JDK_IMAGE
TAR="$POOLS_CACHE/pools-jdk17-rootfs-$RECIPE.tar"
DOCKER_BIN=${DOCKER_BIN:-docker}
t0=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - t0) / 1000000 )) ms"; }

if [[ $("$DOCKER_BIN" image inspect -f '{{index .Config.Labels "pools.recipe"}}' "$IMAGE" 2>/dev/null) == "$RECIPE" ]]; then
  echo "$IMAGE already present ($(elapsed))"; exit 0
fi
mkdir -p "$POOLS_CACHE"
exec 9> "$POOLS_CACHE/.build.lock"; flock 9          # parallel runs: one builds, the others wait

# Mirrors as configured on this machine (one-line .list and deb822 .sources, enabled files only).
apt_uri_for_suite() {  # $1 = suite
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] && awk -v s="$1" '$1=="deb" { i=2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++; if ($(i+1)==s) print $i }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] && awk -v s="$1" 'BEGIN{RS=""; FS="\n"} {u=""; ok=0; t=1
        for (k=1;k<=NF;k++) { if ($k ~ /^URIs:/) { split($k,a," "); u=a[2] }
          if ($k ~ /^Suites:/) { n=split($k,a," "); for (j=2;j<=n;j++) if (a[j]==s) ok=1 }
          if ($k ~ /^Enabled: *no/) t=0 }
        if (ok && t && u!="") print u }' "$f"
  done
}
MIRROR=${POOLS_DEBIAN_MIRROR:-$(apt_uri_for_suite bookworm | head -n1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SEC_MIRROR=${POOLS_DEBIAN_SECURITY_MIRROR:-$(apt_uri_for_suite bookworm-security | head -n1)}

if [[ ! -s $TAR ]]; then
  command -v debootstrap >/dev/null || { echo "debootstrap missing (run containers/docker-start.sh)"; exit 1; }
  WORK=$(mktemp -d "$POOLS_CACHE/build.XXXXXX"); R="$WORK/rootfs"
  cleanup() {
    umount "$R/proc" 2>/dev/null || true
    if awk -v d="$WORK/" 'index($2, d) == 1 {f=1} END {exit !f}' /proc/mounts; then
      echo "mounts left under $WORK, not deleting it"; return
    fi
    rm -rf --one-file-system "$WORK"
  }
  trap cleanup EXIT
  echo "debootstrap bookworm from $MIRROR (security: ${SEC_MIRROR:-none})"
  debootstrap --variant=minbase bookworm "$R" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 \
    || { tail -n 30 "$WORK/debootstrap.log"; exit 1; }
  echo "  debootstrap done ($(elapsed))"
  {
    echo "deb $MIRROR bookworm main"
    echo "deb $MIRROR bookworm-updates main"
    [[ -n $SEC_MIRROR ]] && echo "deb $SEC_MIRROR bookworm-security main"
  } > "$R/etc/apt/sources.list"
  cat > "$R/etc/dpkg/dpkg.cfg.d/01-pools-nodoc" <<'CFG'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' > "$R/etc/apt/apt.conf.d/01-pools-norecommends"
  printf '#!/bin/sh\nexit 101\n' > "$R/usr/sbin/policy-rc.d"; chmod +x "$R/usr/sbin/policy-rc.d"
  mount -t proc proc "$R/proc"
  chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive /bin/sh -ec '
      apt-get update -q
      apt-get install -y -q --no-install-recommends openjdk-17-jre-headless
      apt-get clean
      java -version' > "$WORK/chroot.log" 2>&1 || { tail -n 30 "$WORK/chroot.log"; exit 1; }
  umount "$R/proc"
  echo "  openjdk-17-jre-headless installed ($(elapsed))"
  rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/*.bin "$R"/var/cache/debconf/*-old \
         "$R"/usr/share/doc/* "$R"/usr/share/man/* "$R"/usr/share/info/* \
         "$R"/var/log/*.log "$R"/var/log/apt/* "$R"/usr/sbin/policy-rc.d "$R"/tmp/* 2>/dev/null || true
  find "$R/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  tar -C "$R" --numeric-owner -cf "$TAR.tmp" . && mv "$TAR.tmp" "$TAR"
  echo "  rootfs cached: $TAR ($(du -h "$TAR" | cut -f1), $(elapsed))"
fi

"$DOCKER_BIN" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64' \
  --change 'ENV LANG=C.UTF-8' \
  --change "LABEL pools.recipe=$RECIPE" \
  --change 'CMD ["java","-version"]' \
  "$TAR" "$IMAGE" >/dev/null
echo "$IMAGE imported: $("$DOCKER_BIN" image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}') ($(elapsed))"
