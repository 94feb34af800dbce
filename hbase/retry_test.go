package hbase

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

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
		{"nil", nil, GiveUp},
		{"not serving", remote("org.apache.hadoop.hbase.NotServingRegionException", false), Relocate},
		{"moved", remote("org.apache.hadoop.hbase.exceptions.RegionMovedException", false), Relocate},
		{"rs stopped", remote("org.apache.hadoop.hbase.regionserver.RegionServerStoppedException", false), Relocate},
		{"too busy", remote("org.apache.hadoop.hbase.RegionTooBusyException", false), Retry},
		{"not running yet", remote("org.apache.hadoop.hbase.ipc.ServerNotRunningYetException", false), Retry},
		{"queue full", remote("org.apache.hadoop.hbase.CallQueueTooBigException", false), Retry},
		{"please hold", remote("org.apache.hadoop.hbase.PleaseHoldException", false), Retry},
		{"opening", remote("org.apache.hadoop.hbase.exceptions.RegionOpeningException", false), Retry},
		{"table not found", remote("org.apache.hadoop.hbase.TableNotFoundException", true), GiveUp},
		{"no family", remote("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException", true), GiveUp},
		{"do not retry", remote("org.apache.hadoop.hbase.DoNotRetryIOException", true), GiveUp},
		{"unknown subclass flagged", remote("com.example.MyDoNotRetryException", true), GiveUp},
		{"unknown io exception", remote("java.io.IOException", false), Retry},
		{"wal closed", newRemoteError(&pb.ExceptionResponse{ExceptionClassName: proto.String("java.io.IOException"),
			StackTrace: proto.String("java.io.IOException: Cannot append; log is closed")}), Relocate},
		{"wrapped remote", fmt.Errorf("get: %w", remote("org.apache.hadoop.hbase.NotServingRegionException", false)), Relocate},
		{"conn broken", &ConnError{Server: ServerName{Host: "h", Port: 1}, Err: io.EOF}, Relocate},
		{"conn closed by us", &ConnError{Err: ErrClosed}, GiveUp},
		{"client closed", ErrClosed, GiveUp},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), GiveUp},
		{"deadline", context.DeadlineExceeded, GiveUp},
		{"locate hole", &locateError{table: "t", msg: "hole"}, Relocate},
		{"table missing locally", &NotFoundError{Kind: KindTableNotFound, What: "table", Name: "t"}, GiveUp},
		{"scanner reset", &retryableError{errors.New("x")}, Retry},
		{"plain error", errors.New("bad input"), GiveUp},
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

func TestBackoff(t *testing.T) {
	b := Backoff{Base: 100 * time.Millisecond, Max: time.Second}
	tests := []struct {
		attempt  int
		jitter   float64
		min, max time.Duration
	}{
		{0, 0, 50 * time.Millisecond, 50 * time.Millisecond},
		{0, 0.999, 50 * time.Millisecond, 100 * time.Millisecond},
		{1, 0, 100 * time.Millisecond, 100 * time.Millisecond},
		{3, 0.5, 600 * time.Millisecond, 600 * time.Millisecond},
		{4, 0, 500 * time.Millisecond, 500 * time.Millisecond}, // capped at Max
		{60, 1, 500 * time.Millisecond, time.Second},           // no overflow
		{2, -3, 200 * time.Millisecond, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		got := b.Delay(tt.attempt, tt.jitter)
		if got < tt.min || got > tt.max {
			t.Errorf("Delay(%d, %v) = %v, want in [%v, %v]", tt.attempt, tt.jitter, got, tt.min, tt.max)
		}
	}
	if d := (Backoff{}).Delay(0, 0); d != defaultBackoff.Base/2 {
		t.Errorf("zero Backoff Delay = %v", d)
	}
}
