#!/usr/bin/env bash
# The README's test command (make test runs it after make deps): starts the two mini
# clusters and the catalog's throwaway MariaDB and PostgreSQL servers
# (scripts/databases.sh), runs go vet and every test with the race detector against them,
# then schemathesis on rangecopy server's API (scripts/schemathesis.sh), and stops the
# clusters and the databases even when something fails. What was already running is used
# as it is and left running.
set -euo pipefail
cd "$(dirname "$0")/.."

started=0
if go run ./testenv/cmd/testenv status >/dev/null 2>&1; then
  echo "test: using the test environment that is already running"
else
  go run ./testenv/cmd/testenv up
  started=1
fi
dbstarted=0
# What the dashboard's browser tests lack (they skip without it, and fail in CI): said again
# as the run's last line, where it cannot scroll away.
browser_missing=()
# in_ci is testenv.InCI: CI set to anything but "", "false" or "0".
in_ci() { [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; }
stop() {
  status=$?
  if [ "$started" = 1 ]; then
    go run ./testenv/cmd/testenv down || true
  fi
  if [ "$dbstarted" = 1 ]; then
    bash scripts/databases.sh stop || true
  fi
  if [ ${#browser_missing[@]} -gt 0 ]; then
    echo "test: WARNING: the dashboard's browser tests did not run: ${browser_missing[*]} missing" >&2
    if in_ci; then
      echo "test: FAIL: in CI (CI=$CI) the browser tests must run" >&2
      status=1
    fi
  fi
  exit "$status"
}
trap stop EXIT

# The catalog suite runs against SQLite and these two servers.
if bash scripts/databases.sh status; then
  echo "test: using the catalog databases that are already running"
else
  dbstarted=1
  bash scripts/databases.sh start
fi
eval "$(bash scripts/databases.sh env)"

# The dashboard's browser tests (server/dashboard_browser_test.go) drive Debian's chromium
# and install axe-core with npm from server/testdata/axe; install what is missing.
# RANGECOPY_TEST_CHROMIUM and RANGECOPY_TEST_NPM name them elsewhere.
browser_tools() {
  browser_missing=()
  [ -n "${RANGECOPY_TEST_CHROMIUM:-}" ] || command -v chromium >/dev/null || command -v chromium-browser >/dev/null ||
    command -v google-chrome >/dev/null || browser_missing+=(chromium)
  [ -n "${RANGECOPY_TEST_NPM:-}" ] || command -v npm >/dev/null || browser_missing+=(npm)
}
browser_tools
if [ ${#browser_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test: installing ${browser_missing[*]}"
    if ! { apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${browser_missing[@]}" >/dev/null; }; then
      echo "test: could not install ${browser_missing[*]}" >&2
    fi
  else
    echo "test: missing ${browser_missing[*]}; install them (Debian/Ubuntu: sudo apt-get install ${browser_missing[*]})" >&2
  fi
  browser_tools
fi

go vet ./...
# Allocation counts mean nothing under the race detector, so those tests skip
# there; run them first without it.
go test -count=1 -run 'Allocs$' $(go list ./... | grep -v /cmd/)
# Integration tests fail, never skip, in CI (CI set, testenv.InCI) when the environment is missing.
# Each package is bounded well inside CI's limit: a stuck test prints every
# goroutine's stack (go test's timeout panic) within minutes.
go test -race -count=1 -timeout 15m ./...
# rangecopy server's REST API against its OpenAPI document (installs schemathesis in a
# cache folder on first use); a failure fails the run.
bash scripts/schemathesis.sh
