#!/usr/bin/env bash
# make bench: starts the two mini clusters if none is running, builds rangecopy
# and the harness, and measures every copy method on a SIZE table (default
# 2GiB) in one run: bench/results/<time>.json and .png, and the generated table
# in docs/benchmarks.md. BENCH_FLAGS passes more flags to bench/cmd/bench. An
# environment this script started is stopped at the end; one already running
# is left running.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE="${SIZE:-2GiB}"

started=0
if go run ./testenv/cmd/testenv status >/dev/null 2>&1; then
  echo "bench: using the test environment that is already running"
else
  mvn -B -q -f testenv/pom.xml package
  go run ./testenv/cmd/testenv up
  started=1
fi
stop() {
  if [ "$started" = 1 ]; then
    go run ./testenv/cmd/testenv down || true
  fi
}
trap stop EXIT

go build -o bin/bench ./bench/cmd/bench
# shellcheck disable=SC2086
bin/bench --size "$SIZE" --command "make bench SIZE=$SIZE${BENCH_FLAGS:+ BENCH_FLAGS=\"$BENCH_FLAGS\"}" ${BENCH_FLAGS:-}
