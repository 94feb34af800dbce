// Package pb holds the Go code generated from rangecopy's wire-compatible
// subset of HBase's protobuf definitions (hbase/proto). Do not edit the
// *.pb.go files; run generate.sh (or `go generate ./hbase/pb`).
package pb

//go:generate ./generate.sh
