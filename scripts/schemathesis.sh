#!/usr/bin/env bash
# Fuzzes rangecopy server's REST API with schemathesis against its own OpenAPI document:
# builds the binary, starts `rangecopy server` on the test environment's target ZooKeeper
# (a registry root and a SQLite catalog of its own, a free loopback port), registers one
# cluster that nothing answers for, and runs schemathesis on every operation (the event
# stream too) with the bootstrap admin token. It fails when schemathesis finds a server
# error, a response that does not match the document (schema, status code, content type),
# or cannot run. scripts/test.sh runs it after the Go tests; run it alone with a test
# environment up (make testenv-up).
#
# Settings (environment): SCHEMATHESIS_MAX_EXAMPLES (default 50) test cases per operation
# and round, SCHEMATHESIS_MAX_TIME (default 120) seconds for the whole run (fuzzing repeats
# until it is spent; the run is stopped 5 minutes past it), SCHEMATHESIS_SEED (default
# random; the summary prints it), SCHEMATHESIS_VENV the virtualenv schemathesis is
# installed in (default ~/.cache/rangecopy/schemathesis), SCHEMATHESIS_REPORT_DIR where its
# JUnit report goes (default a temporary folder, removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."

# The schemathesis release this script was written for; its CLI changes between majors.
version=4.32.5
venv="${SCHEMATHESIS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/rangecopy/schemathesis}"
max_examples="${SCHEMATHESIS_MAX_EXAMPLES:-50}"
max_time="${SCHEMATHESIS_MAX_TIME:-120}"

if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -qF "version $version"; then
  echo "schemathesis: installing schemathesis $version in $venv"
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

state="${RANGECOPY_TESTENV:-.testenv}"
zk="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"]["zkQuorum"])' "$state/clusters.json")"

go build -o "$work/rangecopy" ./cmd/rangecopy
"$work/rangecopy" server --zk "$zk" --zk-root "/rangecopy-schemathesis-$(date +%s)-$$" \
  --data-dir "$work/data" --listen 127.0.0.1:0 --log-format json 2>"$work/server.log" &
server_pid=$!

# The server prints its URL once it listens and has written the bootstrap token.
base=""
for _ in $(seq 1 600); do
  base="$(sed -n 's/^rangecopy server: serving \(http[^ ]*\)$/\1/p' "$work/server.log")"
  [ -n "$base" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "schemathesis: rangecopy server exited before serving:" >&2
    cat "$work/server.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$base" ]; then
  echo "schemathesis: rangecopy server did not serve within 60 s:" >&2
  tail -50 "$work/server.log" >&2
  exit 1
fi
token="$(cat "$work/data/admin-token")"
echo "schemathesis: rangecopy server at $base (log $work/server.log)"

# No cluster is registered: a job naming a registered cluster that cannot be reached is a 502
# (the cluster, not the request, is wrong), which the not_a_server_error check would count.
# Clusters schemathesis registers itself must have hosts that resolve (400 otherwise).

report="$(realpath -m "${SCHEMATHESIS_REPORT_DIR:-$work/report}")"
rc=0
# From the temporary folder: schemathesis keeps a cache in its working directory.
(cd "$work" && timeout --signal=INT --kill-after=30 "$((max_time + 300))" \
  "$venv/bin/schemathesis" run "$base/openapi.yaml" \
  --header "Authorization: Bearer $token" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --max-examples "$max_examples" --max-time "$max_time" --request-timeout 30 \
  --seed "${SCHEMATHESIS_SEED:-$RANDOM}" \
  --workers 1 --no-color --warnings off --generation-database none \
  --report junit --report-dir "$report") || rc=$?
if [ "$rc" != 0 ]; then
  echo "schemathesis: failed (exit $rc); end of the server's log:" >&2
  tail -40 "$work/server.log" >&2
fi
exit "$rc"
