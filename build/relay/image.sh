#!/usr/bin/env bash
# Builds the relay's container image without pulling anything: a static
# scouts-relay (CGO_ENABLED=0) on scratch, with this machine's CA
# certificates and a /data owned by the relay's user (build/relay/Dockerfile).
#
# Usage: build/relay/image.sh [TAG]        (default TAG: scouts-relay:VERSION)
#   CONTAINER=docker   build with Docker instead of podman
#   CA_CERTS=FILE      another CA bundle (default: Debian's, from ca-certificates)
#   VERSION=v1.2.3     the version the binary reports
set -euo pipefail
cd "$(dirname "$0")/../.."

version="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
tag="${1:-scouts-relay:$version}"
engine="${CONTAINER:-podman}"
certs="${CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"

if ! command -v "$engine" >/dev/null 2>&1; then
	echo "image: $engine is not installed (apt-get install podman, or CONTAINER=docker)" >&2
	exit 1
fi
if [ ! -s "$certs" ]; then
	echo "image: no CA certificates at $certs (apt-get install ca-certificates, or CA_CERTS=FILE)" >&2
	exit 1
fi

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
echo "image: building scouts-relay $version (static)" >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$ctx/scouts-relay" ./relay/cmd/scouts-relay
cp "$certs" "$ctx/ca-certificates.crt"
mkdir "$ctx/data" "$ctx/tmp"
echo "image: building $tag with $engine" >&2
"$engine" build -f build/relay/Dockerfile -t "$tag" "$ctx"
