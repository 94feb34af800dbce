package hbase

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

func remote(class string, doNotRetry bool) error {
	return newRemoteError(&pb.ExceptionResponse{ExceptionClassName: proto.String(class),
		StackTrace: proto.String(class + ": boom\n\tat Foo.bar"), DoNotRetry: proto.Bool(doNotRetry)})
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Action
	}{
		{"nil", nil, ActionGiveUp},
		{"not serving", remote("org.apache.hadoop.hbase.NotServingRegionException", false), ActionRelocate},
		{"moved", remote("org.apache.hadoop.hbase.exceptions.RegionMovedException", false), ActionRelocate},
		{"rs stopped", remote("org.apache.hadoop.hbase.regionserver.RegionServerStoppedException", false), ActionRelocate},
		{"too busy", remote("org.apache.hadoop.hbase.RegionTooBusyException", false), ActionRetry},
		{"not running yet", remote("org.apache.hadoop.hbase.ipc.ServerNotRunningYetException", false), ActionRetry},
		{"queue full", remote("org.apache.hadoop.hbase.CallQueueTooBigException", false), ActionRetry},
		{"please hold", remote("org.apache.hadoop.hbase.PleaseHoldException", false), ActionRetry},
		{"opening", remote("org.apache.hadoop.hbase.exceptions.RegionOpeningException", false), ActionRetry},
		{"table not found", remote("org.apache.hadoop.hbase.TableNotFoundException", true), ActionGiveUp},
		{"no family", remote("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException", true), ActionGiveUp},
		{"do not retry", remote("org.apache.hadoop.hbase.DoNotRetryIOException", true), ActionGiveUp},
		{"unknown subclass flagged", remote("com.example.MyDoNotRetryException", true), ActionGiveUp},
		{"unknown io exception", remote("java.io.IOException", false), ActionRetry},
		{"wal closed", newRemoteError(&pb.ExceptionResponse{ExceptionClassName: proto.String("java.io.IOException"),
			StackTrace: proto.String("java.io.IOException: Cannot append; log is closed")}), ActionRelocate},
		{"wrapped remote", fmt.Errorf("get: %w", remote("org.apache.hadoop.hbase.NotServingRegionException", false)), ActionRelocate},
		{"conn broken", &ConnError{Server: ServerName{Host: "h", Port: 1}, Err: io.EOF}, ActionRelocate},
		{"conn closed by us", &ConnError{Err: ErrClosed}, ActionGiveUp},
		{"client closed", ErrClosed, ActionGiveUp},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), ActionGiveUp},
		{"deadline", context.DeadlineExceeded, ActionGiveUp},
		{"locate hole", &locateError{table: "t", msg: "hole"}, ActionRelocate},
		{"table missing locally", &NotFoundError{Kind: KindTableNotFound, What: "table", Name: "t"}, ActionGiveUp},
		{"scanner reset", &retryableError{errors.New("x")}, ActionRetry},
		{"plain error", errors.New("bad input"), ActionGiveUp},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("%s: Classify(%v) = %s, want %s", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestRemoteError(t *testing.T) {
	ex := &pb.ExceptionResponse{
		ExceptionClassName: proto.String("org.apache.hadoop.hbase.exceptions.RegionMovedException"),
		StackTrace:         proto.String("org.apache.hadoop.hbase.exceptions.RegionMovedException: Region moved to: hostname=rs2 port=16020\n\tat X"),
		Hostname:           proto.String("rs2"), Port: proto.Int32(16020),
	}
	e := newRemoteError(ex)
	e.Server, e.Region, e.Method, e.CallID = ServerName{Host: "rs1", Port: 16020}, "t,,1.abc.", "Get", 9
	var err error = fmt.Errorf("get: %w", e)
	if !errors.Is(err, ErrRegionMoved) || errors.Is(err, ErrNotServingRegion) {
		t.Fatal("errors.Is does not match the kind")
	}
	var re *RemoteError
	if !errors.As(err, &re) || re.MovedTo != (ServerName{Host: "rs2", Port: 16020}) {
		t.Fatalf("MovedTo = %v", re.MovedTo)
	}
	want := "org.apache.hadoop.hbase.exceptions.RegionMovedException: Region moved to: hostname=rs2 port=16020 (call Get #9 on rs1:16020, region t,,1.abc., moved to rs2:16020)"
	if e.Error() != want {
		t.Fatalf("Error() =\n%s\nwant\n%s", e.Error(), want)
	}
	flagged := remote("org.apache.hadoop.hbase.exceptions.ScannerResetException", true)
	if !errors.Is(flagged, ErrDoNotRetry) {
		t.Fatal("do_not_retry exception does not match ErrDoNotRetry")
	}
	nf := &NotFoundError{Kind: KindTableNotFound, What: "table", Name: "nope"}
	if !errors.Is(nf, ErrTableNotFound) || nf.Error() != `hbase: table "nope" not found` {
		t.Fatalf("NotFoundError %v", nf)
	}
	for k := KindOther; k <= KindDoNotRetryIO; k++ {
		if k.String() == "" || k.String()[0] == 'E' {
			t.Errorf("kind %d has no name", k)
		}
	}
}
