#!/bin/bash
# Builds the stand-ins named in deploy/offline/images.env from Debian 12's own packages, for a
# machine that cannot pull from Docker Hub (deploy/offline/README.md):
#   deploy/offline/build.sh            # with podman; CONTAINER_ENGINE=docker for docker
# Their base is BASE_IMAGE (localhost/bookworm): used as it is if present, else made with
# debootstrap (root, and Debian's mirror reachable) and imported.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
engine="${CONTAINER_ENGINE:-podman}"
base="${BASE_IMAGE:-localhost/bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
extra_ca="${EXTRA_CA_DIR:-/usr/local/share/ca-certificates}"

# shellcheck source=images.env
source "$here/images.env"

if "$engine" image inspect "$base" > /dev/null 2>&1; then
	echo "base image: $base (present)"
else
	echo "base image: $base, made with debootstrap from $mirror"
	rootfs="$(mktemp -d)"
	trap 'rm -rf "$rootfs"' EXIT
	debootstrap --variant=minbase bookworm "$rootfs" "$mirror"
	cat > "$rootfs/etc/apt/sources.list" <<-SOURCES
		deb $mirror bookworm main
		deb $mirror bookworm-updates main
		deb ${mirror%/debian}/debian-security bookworm-security main
	SOURCES
	rm -rf "$rootfs/var/lib/apt/lists/"* "$rootfs/var/cache/apt/"*.bin
	tar -C "$rootfs" -c . | "$engine" import \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'CMD ["bash"]' - "$base"
fi

build() {
	local image="$1" context="$2"
	echo "building $image"
	"$engine" build --build-arg "BASE_IMAGE=$base" -t "$image" "$context"
}

build "$ARBITER_POSTGRES_IMAGE" "$here/postgres"
build "$ARBITER_REDIS_IMAGE" "$here/redis"
build "$ARBITER_CADDY_IMAGE" "$here/caddy"

# The Python image's context: its Dockerfile and the machine's own CA certificates.
context="$(mktemp -d)"
cp "$here/python/Dockerfile" "$context/"
mkdir "$context/extra-ca"
find "$extra_ca" -maxdepth 1 -name '*.crt' -exec cp {} "$context/extra-ca/" \; 2> /dev/null || true
build "$ARBITER_PYTHON_IMAGE" "$context"
rm -rf "$context"
