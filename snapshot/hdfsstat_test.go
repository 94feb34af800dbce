package snapshot

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"rangecopy/fsys"
)

// statFS answers Stat with fixed HDFS file statuses.
type statFS map[string]*hdfs.FileStatus

type statInfo struct{ st *hdfs.FileStatus }

func (i statInfo) Name() string       { return "f" }
func (i statInfo) Size() int64        { return int64(i.st.GetLength()) }
func (i statInfo) Mode() fs.FileMode  { return 0o644 }
func (i statInfo) ModTime() time.Time { return time.Time{} }
func (i statInfo) IsDir() bool        { return false }
func (i statInfo) Sys() any           { return i.st }

func (s statFS) Stat(_ context.Context, name string) (fs.FileInfo, error) {
	if st, ok := s[name]; ok {
		return statInfo{st}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (s statFS) Open(context.Context, string) (fsys.File, error) { return nil, errors.ErrUnsupported }

// status decodes a NameNode file status from its protobuf fields (length = 3,
// fileEncryptionInfo = 15, ecPolicy = 17), as the HDFS client would get it.
func status(t *testing.T, length uint64, encrypted bool, ecPolicy string) *hdfs.FileStatus {
	var b []byte
	b = protowire.AppendTag(b, 3, protowire.VarintType)
	b = protowire.AppendVarint(b, length)
	if encrypted {
		var e []byte
		e = protowire.AppendTag(e, 3, protowire.BytesType)
		e = protowire.AppendBytes(e, []byte("key"))
		b = protowire.AppendTag(b, 15, protowire.BytesType)
		b = protowire.AppendBytes(b, e)
	}
	if ecPolicy != "" {
		var e []byte
		e = protowire.AppendTag(e, 1, protowire.BytesType)
		e = protowire.AppendString(e, ecPolicy)
		e = protowire.AppendTag(e, 4, protowire.VarintType)
		e = protowire.AppendVarint(e, 3)
		b = protowire.AppendTag(b, 17, protowire.BytesType)
		b = protowire.AppendBytes(b, e)
	}
	st := new(hdfs.FileStatus)
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(b, st); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestResolveRefusesErasureCodedAndEncryptedFiles(t *testing.T) {
	const p = "/hbase/data/default/t/r1/f/ab"
	mf := ManifestFile{Region: "r1", Family: "f", Name: "ab"}
	tests := []struct {
		name    string
		st      *hdfs.FileStatus
		mention string
	}{
		{"replicated", status(t, 123, false, ""), ""},
		{"erasure-coded", status(t, 123, false, "XOR-2-1-1024k"), "erasure-coded (policy XOR-2-1-1024k)"},
		{"encryption zone", status(t, 123, true, ""), "encryption zone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Resolve(context.Background(), statFS{p: tc.st}, testRoot, "t", mf)
			if tc.mention == "" {
				if err != nil || in.Path != p || in.Size != 123 {
					t.Fatalf("Resolve = %+v, %v", in, err)
				}
				return
			}
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tc.mention) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v, want ErrUnsupported naming %s and %q", err, p, tc.mention)
			}
		})
	}
}
