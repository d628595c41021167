#!/usr/bin/env bash
# Builds Relay's container image with podman from this machine's Debian
# packages, without pulling anything (no registry is needed):
#
#   deploy/container/build.sh [--binary PATH] [--tag TAG]
#
#   --binary PATH  the relay binary to put in the image; default the release
#                  build, ${CARGO_TARGET_DIR:-target}/release/relay
#                  (`cargo build --release -p relay`)
#   --tag TAG      the image's name; default localhost/relay:latest
#
# The image is `FROM scratch` plus a root file system made here: the binary
# (its debug information stripped) at /usr/local/bin/relay, exactly the shared
# libraries it links (as `ldd` lists them, with the dynamic loader) copied from
# the Debian packages installed here, Debian's CA certificates
# (/etc/ssl/certs/ca-certificates.crt, package ca-certificates), an
# /etc/passwd and /etc/group naming the non-root user relay (uid and gid
# 10001), /tmp, and /data owned by relay. /usr/share/doc/relay-image/packages
# lists which Debian package (and version) each copied file came from. See
# deploy/container/Containerfile for how it runs.
#
# PODMAN is the podman command with any global options, e.g.
#   PODMAN="podman --storage-driver vfs" deploy/container/build.sh
# where overlay storage does not work (inside another container).
# Prints the image's id on its last line.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BINARY="${CARGO_TARGET_DIR:-$ROOT/target}/release/relay"
TAG="localhost/relay:latest"
read -r -a PODMAN_CMD <<<"${PODMAN:-podman}"

while [ $# -gt 0 ]; do
    case "$1" in
        --binary) BINARY="$2"; shift 2 ;;
        --tag) TAG="$2"; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

die() { echo "build.sh: $*" >&2; exit 1; }
[ -x "$BINARY" ] || die "no relay binary at $BINARY (cargo build --release -p relay, or pass --binary)"
command -v ldd >/dev/null || die "ldd is missing (Debian: libc-bin)"
command -v "${PODMAN_CMD[0]}" >/dev/null || die "${PODMAN_CMD[0]} is missing (Debian: apt-get install podman runc)"
CA=/etc/ssl/certs/ca-certificates.crt
[ -s "$CA" ] || die "$CA is missing (Debian: apt-get install ca-certificates)"

CTX="$(mktemp -d)"
trap 'rm -rf "$CTX"' EXIT
ROOTFS="$CTX/rootfs"
mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/etc/ssl/certs" "$ROOTFS/tmp" \
    "$ROOTFS/usr/share/doc/relay-image" "$CTX/data"
chmod 1777 "$ROOTFS/tmp"

# The binary, without its debug information (a debug build shrinks tenfold).
if command -v objcopy >/dev/null; then
    objcopy --strip-debug "$BINARY" "$ROOTFS/usr/local/bin/relay"
else
    cp "$BINARY" "$ROOTFS/usr/local/bin/relay"
fi
chmod 0755 "$ROOTFS/usr/local/bin/relay"

# Exactly the libraries it links, at the paths the loader finds them.
copied=("$CA")
libs="$(ldd "$BINARY")" || die "ldd $BINARY failed: is it a dynamically linked Linux binary?"
while read -r lib; do
    [ -n "$lib" ] || continue
    mkdir -p "$ROOTFS$(dirname "$lib")"
    cp -L "$lib" "$ROOTFS$lib"
    copied+=("$lib")
done < <(grep -o '/[^ ]*' <<<"$libs" | sort -u)

cp -L "$CA" "$ROOTFS$CA"
cat >"$ROOTFS/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/usr/sbin/nologin
relay:x:10001:10001:relay:/data:/usr/sbin/nologin
PASSWD
cat >"$ROOTFS/etc/group" <<'GROUP'
root:x:0:
relay:x:10001:
GROUP

# Where each file came from (dpkg knows the paths before or after /usr merge).
for f in "${copied[@]}"; do
    pkg="$(dpkg -S "$f" 2>/dev/null || dpkg -S "$(readlink -f "$f")" 2>/dev/null || true)"
    pkg="${pkg%%:*}"
    if [ "$f" = "$CA" ]; then
        echo "$f ca-certificates $(dpkg-query -W -f '${Version}' ca-certificates 2>/dev/null || true) (update-ca-certificates)"
    elif [ -n "$pkg" ]; then
        version="$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || true)"
        echo "$f $pkg $version"
    else
        echo "$f (not from a Debian package)"
    fi
done >"$ROOTFS/usr/share/doc/relay-image/packages"

cp "$HERE/Containerfile" "$CTX/Containerfile"
version="$("$BINARY" --version | awk '{print $2}')"
"${PODMAN_CMD[@]}" build --quiet --format docker \
    --label "org.opencontainers.image.title=relay" \
    --label "org.opencontainers.image.version=$version" \
    --tag "$TAG" -f "$CTX/Containerfile" "$CTX"
