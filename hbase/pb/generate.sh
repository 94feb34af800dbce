#!/bin/sh
# Regenerates the Go code in hbase/pb from the .proto sources in hbase/proto.
# Needs protoc (Debian protobuf-compiler 3.21) and protoc-gen-go v1.36.12 on PATH
# (or in $(go env GOPATH)/bin).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
protodir="$here/../proto"
PATH="$PATH:$(go env GOPATH)/bin"
export PATH
rm -f "$here"/*.pb.go
protoc -I "$protodir" --go_out="$here" --go_opt=paths=source_relative \
  "$protodir"/*.proto
