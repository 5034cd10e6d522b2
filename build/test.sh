#!/usr/bin/env bash
# Runs the stages of `make test` one after another, each whatever became of
# the ones before (a failing Go package no longer keeps the browser tests
# from running), then says which failed and exits non-zero if any did.
#
# Usage: build/test.sh STAGE...   each STAGE a make target (make test gives
# vet test-go test-window test-ui test-browser). TEST_RUN replaces the
# command a stage runs with (default: "$MAKE --no-print-directory"), so the
# script's own test can run stages that are shell commands.
set -uo pipefail
run="${TEST_RUN:-${MAKE:-make} --no-print-directory}"
passed=()
failed=()
stopped=0
trap 'stopped=1' INT TERM
for stage in "$@"; do
	echo "test: == $stage" >&2
	start=$(date +%s)
	# $run is a command and its options: split on purpose.
	# shellcheck disable=SC2086
	$run "$stage"
	code=$?
	took=$(( $(date +%s) - start ))
	if [ "$stopped" = 1 ] || [ "$code" -ge 128 ]; then
		# Interrupted (Ctrl-C): the person wants to stop, not the next stage.
		failed+=("$stage (interrupted)")
		break
	fi
	if [ "$code" = 0 ]; then
		passed+=("$stage (${took}s)")
	else
		failed+=("$stage (exit $code, ${took}s)")
	fi
done
echo "test: ==== summary" >&2
for s in ${passed[@]+"${passed[@]}"}; do echo "test:   passed  $s" >&2; done
for s in ${failed[@]+"${failed[@]}"}; do echo "test:   FAILED  $s" >&2; done
if [ ${#failed[@]} -gt 0 ]; then
	echo "test: ${#failed[@]} of $# stage(s) failed: their output is above, under \"test: == STAGE\"." >&2
	echo "test: Go caches passing packages: a rerun replays them; GOFLAGS=-count=1 make test runs every test again." >&2
	exit 1
fi
echo "test: all $# stage(s) passed" >&2
