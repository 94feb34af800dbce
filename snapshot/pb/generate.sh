#!/bin/sh
# Regenerates manifest.pb.go from manifest.proto.
# Needs protoc (Debian protobuf-compiler) and protoc-gen-go on PATH (or in
# $(go env GOPATH)/bin). The proto is compiled from the module root so that it
# registers as "snapshot/pb/manifest.proto", a path no other package uses.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PATH="$PATH:$(go env GOPATH)/bin"
export PATH
rm -f "$here"/*.pb.go
cd "$root"
protoc -I . --go_out=. --go_opt=paths=source_relative snapshot/pb/manifest.proto
