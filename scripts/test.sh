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
stop() {
  if [ "$started" = 1 ]; then
    go run ./testenv/cmd/testenv down || true
  fi
  if [ "$dbstarted" = 1 ]; then
    bash scripts/databases.sh stop || true
  fi
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
browser_missing=()
command -v chromium >/dev/null || browser_missing+=(chromium)
command -v npm >/dev/null || browser_missing+=(npm)
if [ ${#browser_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test: installing ${browser_missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${browser_missing[@]}" >/dev/null
  else
    echo "test: missing ${browser_missing[*]}; install them (Debian/Ubuntu: sudo apt-get install ${browser_missing[*]})" >&2
  fi
fi

go vet ./...
# Allocation counts mean nothing under the race detector, so those tests skip
# there; run them first without it.
go test -count=1 -run 'Allocs$' $(go list ./... | grep -v /cmd/)
# Integration tests fail, never skip, when CI=true and the environment is missing.
# Each package is bounded well inside CI's limit: a stuck test prints every
# goroutine's stack (go test's timeout panic) within minutes.
go test -race -count=1 -timeout 15m ./...
# rangecopy server's REST API against its OpenAPI document (installs schemathesis in a
# cache folder on first use); a failure fails the run.
bash scripts/schemathesis.sh
