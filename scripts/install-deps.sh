#!/usr/bin/env bash
# Installs what rangecopy's build and tests need and is missing: JDK 17 and Maven (for the
# test harness), protoc (protobuf-compiler) and protoc-gen-go (for hbase/'s wire code),
# promtool (for deploy/prometheus's alerting rules), Python 3 with venv and curl
# (scripts/schemathesis.sh installs schemathesis itself); then fetches the Go modules and the
# harness's Maven dependencies. Go itself (1.25 or newer) must be installed already. Uses
# apt-get when run as root on Debian or Ubuntu.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "install-deps: $*" >&2; }

command -v go >/dev/null || { say "Go 1.25 or newer is required: https://go.dev/doc/install"; exit 1; }

missing=()
command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])' || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || missing+=(maven)
command -v protoc >/dev/null || missing+=(protobuf-compiler)
command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3 python3-venv)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    say "missing: ${missing[*]}; install them (Debian/Ubuntu: sudo apt-get install ${missing[*]})"
    exit 1
  fi
fi

# promtool tests deploy/prometheus/alerts.yaml (server's TestAlertRules). Debian's prometheus
# package holds it; only promtool is taken out of it, into /usr/local/bin, so no Prometheus
# server is installed or started.
if ! command -v promtool >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing promtool (from Debian's prometheus package)"
    tmp=$(mktemp -d)
    (cd "$tmp" && { apt-get download -qq prometheus 2>/dev/null || { apt-get update -qq && apt-get download -qq prometheus; }; } &&
      dpkg-deb -x prometheus_*.deb root)
    install -m 0755 "$tmp/root/usr/bin/promtool" /usr/local/bin/promtool
    rm -rf "$tmp"
  else
    say "missing: promtool; install it (Debian/Ubuntu: sudo apt-get install prometheus, or a Prometheus release's promtool)"
    exit 1
  fi
fi

gobin=$(go env GOPATH)/bin
if ! command -v protoc-gen-go >/dev/null && [ ! -x "$gobin/protoc-gen-go" ]; then
  say "installing protoc-gen-go"
  go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
fi

go mod download
# Resolves and caches the harness's dependencies (HBase, Hadoop) in ~/.m2 and builds it.
t0=$(date +%s)
mvn -B -q -f testenv/pom.xml package
say "harness built in $(( $(date +%s) - t0 )) s"
