#!/usr/bin/env bash
# Runs `make test` N times in a row while one busy loop per spare core keeps
# the machine loaded, and stops at the first failure. Usage: build/stress.sh N
set -euo pipefail
runs="${1:-5}"
cores="$(nproc)"
busy=$(( cores > 1 ? cores - 1 : 1 ))
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for _ in $(seq "$busy"); do
	# A shell busy loop: no package to install, and it only burns CPU.
	( while :; do :; done ) &
	pids+=("$!")
done
# Every run runs every Go test again: with go test's cache, the runs after
# the first replayed the first one's results without running anything.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
echo "stress: $busy busy loop(s) on $cores cores; make test $runs times (Go test cache off)" >&2
for i in $(seq "$runs"); do
	start=$(date +%s)
	if ! make test; then
		echo "stress: run $i of $runs FAILED" >&2
		exit 1
	fi
	echo "stress: run $i of $runs passed in $(( $(date +%s) - start ))s" >&2
done
echo "stress: $runs of $runs runs passed under load" >&2
