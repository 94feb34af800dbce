package hbase

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// fakeServer is an in-process peer for the protocol mechanics only
// (preamble, framing, call ids, multiplexing); it says nothing about how a
// real HBase server behaves.
type fakeServer struct {
	t      *testing.T
	nc     net.Conn
	header pb.ConnectionHeader
	mu     sync.Mutex
}

type fakeRequest struct {
	hdr   pb.RequestHeader
	param []byte
	cells []byte
}

// startFake connects a conn to a fake server over net.Pipe and reads the
// preamble on the server side.
func startFake(t *testing.T) (*conn, *fakeServer) {
	t.Helper()
	cli, srv := net.Pipe()
	fs := &fakeServer{t: t, nc: srv}
	preamble := make(chan error, 1)
	go func() {
		var pre [10]byte
		if _, err := io.ReadFull(srv, pre[:]); err != nil {
			preamble <- err
			return
		}
		if string(pre[:6]) != "HBas\x00\x50" {
			preamble <- errors.New("bad preamble " + string(pre[:6]))
			return
		}
		b := make([]byte, binary.BigEndian.Uint32(pre[6:]))
		if _, err := io.ReadFull(srv, b); err != nil {
			preamble <- err
			return
		}
		preamble <- proto.Unmarshal(b, &fs.header)
	}()
	c, err := newConn(context.Background(), cli, ServerName{Host: "fake", Port: 1}, ClientService,
		connOptions{auth: Simple{User: "tester"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-preamble; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.close(); srv.Close() })
	return c, fs
}

func (fs *fakeServer) read() (*fakeRequest, error) {
	frame, err := readFrame(fs.nc, DefaultMaxFrameSize)
	if err != nil {
		return nil, err
	}
	hb, rest, err := consumeDelimited(frame)
	if err != nil {
		return nil, err
	}
	r := &fakeRequest{}
	if err := proto.Unmarshal(hb, &r.hdr); err != nil {
		return nil, err
	}
	if r.hdr.GetRequestParam() {
		if r.param, rest, err = consumeDelimited(rest); err != nil {
			return nil, err
		}
	}
	r.cells = rest
	return r, nil
}

func (fs *fakeServer) reply(hdr *pb.ResponseHeader, param proto.Message, cells []byte) error {
	body := buildResponse(fs.t, hdr, param, cells)
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	fs.mu.Lock()
	defer fs.mu.Unlock()
	_, err := fs.nc.Write(append(frame, body...))
	return err
}

func TestConnHeader(t *testing.T) {
	_, fs := startFake(t)
	if fs.header.GetUserInfo().GetEffectiveUser() != "tester" || fs.header.GetServiceName() != "ClientService" ||
		fs.header.GetCellBlockCodecClass() != keyValueCodecClass {
		t.Fatalf("connection header %v", &fs.header)
	}
}

// TestConnMultiplex sends many calls at once; the server answers them in
// reverse order and each call must get its own answer.
func TestConnMultiplex(t *testing.T) {
	c, fs := startFake(t)
	const n = 20
	reqs := make(chan *fakeRequest, n)
	go func() {
		var all []*fakeRequest
		for len(all) < n {
			r, err := fs.read()
			if err != nil {
				return
			}
			all = append(all, r)
		}
		for i := len(all) - 1; i >= 0; i-- {
			var sr pb.ScanRequest
			proto.Unmarshal(all[i].param, &sr)
			cells, _ := encodeCellBlock([]Cell{{Row: []byte{byte(sr.GetScannerId())}, Family: []byte("f"), Type: CellTypePut}})
			fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(all[i].hdr.GetCallId())},
				&pb.ScanResponse{ScannerId: proto.Uint64(sr.GetScannerId())}, cells)
			reqs <- all[i]
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.call(context.Background(), "Scan", &pb.ScanRequest{ScannerId: proto.Uint64(uint64(i))}, nil)
			if err != nil {
				errs <- err
				return
			}
			var sr pb.ScanResponse
			if err := proto.Unmarshal(resp.param, &sr); err != nil {
				errs <- err
				return
			}
			cells, _, err := decodeCellBlock(resp.cellBlock, 1)
			if err != nil {
				errs <- err
				return
			}
			if sr.GetScannerId() != uint64(i) || cells[0].Row[0] != byte(i) {
				errs <- errors.New("call got another call's response")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[uint32]bool{}
	for i := 0; i < n; i++ {
		r := <-reqs
		if seen[r.hdr.GetCallId()] || r.hdr.GetMethodName() != "Scan" {
			t.Fatalf("duplicate call id or bad method: %v", &r.hdr)
		}
		seen[r.hdr.GetCallId()] = true
	}
}

// TestConnCancelledCallKeepsConnection abandons a call; its late answer is
// dropped and the connection keeps working for other calls.
func TestConnCancelledCallKeepsConnection(t *testing.T) {
	c, fs := startFake(t)
	first := make(chan *fakeRequest, 1)
	go func() {
		r, err := fs.read()
		if err != nil {
			return
		}
		first <- r
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.call(ctx, "Get", &pb.ScanRequest{}, nil)
		done <- err
	}()
	r0 := <-first // the server has the request; now the caller gives up
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: err = %v", err)
	}
	// The late answer to the abandoned call, then a second call.
	if err := fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r0.hdr.GetCallId())}, &pb.GetResponse{}, nil); err != nil {
		t.Fatal(err)
	}
	go func() {
		r, err := fs.read()
		if err != nil {
			return
		}
		fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r.hdr.GetCallId())}, &pb.MutateResponse{Processed: proto.Bool(true)}, nil)
	}()
	resp, err := c.call(context.Background(), "Mutate", &pb.ScanRequest{}, nil)
	if err != nil {
		t.Fatalf("call after a cancelled one: %v", err)
	}
	var mr pb.MutateResponse
	if err := proto.Unmarshal(resp.param, &mr); err != nil || !mr.GetProcessed() {
		t.Fatalf("response %v, %v", &mr, err)
	}
}

func TestConnCloseFailsPending(t *testing.T) {
	c, fs := startFake(t)
	got := make(chan struct{})
	go func() {
		if _, err := fs.read(); err == nil {
			close(got)
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := c.call(context.Background(), "Get", &pb.ScanRequest{}, nil)
		done <- err
	}()
	<-got
	c.close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending call after close: err = %v, want ErrClosed", err)
	}
	if _, err := c.call(context.Background(), "Get", &pb.ScanRequest{}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: err = %v", err)
	}
}

func TestConnRemoteException(t *testing.T) {
	c, fs := startFake(t)
	go func() {
		r, err := fs.read()
		if err != nil {
			return
		}
		fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r.hdr.GetCallId()), Exception: &pb.ExceptionResponse{
			ExceptionClassName: proto.String("org.apache.hadoop.hbase.TableNotFoundException"),
			StackTrace:         proto.String("org.apache.hadoop.hbase.TableNotFoundException: nope\n\tat X"),
			DoNotRetry:         proto.Bool(true),
		}}, nil, nil)
	}()
	_, err := c.call(context.Background(), "GetTableDescriptors", &pb.GetTableDescriptorsRequest{}, nil)
	var re *RemoteError
	if !errors.Is(err, ErrTableNotFound) || !errors.As(err, &re) || re.Message != "nope" || re.Method != "GetTableDescriptors" || re.Server.Host != "fake" {
		t.Fatalf("err = %v", err)
	}
	if c.broken() {
		t.Fatal("a remote exception broke the connection")
	}
}

func TestConnUnknownCallIDBreaksConnection(t *testing.T) {
	c, fs := startFake(t)
	go func() {
		if _, err := fs.read(); err != nil {
			return
		}
		fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(999)}, &pb.GetResponse{}, nil)
	}()
	_, err := c.call(context.Background(), "Get", &pb.ScanRequest{}, nil)
	var ce *ConnError
	if !errors.Is(err, ErrProtocol) || !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a ConnError with ErrProtocol", err)
	}
}

func TestConnServerHangUp(t *testing.T) {
	c, fs := startFake(t)
	go func() {
		if _, err := fs.read(); err == nil {
			fs.nc.Close()
		}
	}()
	_, err := c.call(context.Background(), "Get", &pb.ScanRequest{}, nil)
	if Classify(err) != ActionRelocate {
		t.Fatalf("err = %v classified %s, want Relocate", err, Classify(err))
	}
}

func TestConnFatalConnectionException(t *testing.T) {
	c, fs := startFake(t)
	go func() {
		if _, err := fs.read(); err != nil {
			return
		}
		fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(0xFFFFFFFF), Exception: &pb.ExceptionResponse{
			ExceptionClassName: proto.String("org.apache.hadoop.hbase.ipc.FatalConnectionException"),
			StackTrace:         proto.String("org.apache.hadoop.hbase.ipc.FatalConnectionException: bad header"),
		}}, nil, nil)
	}()
	_, err := c.call(context.Background(), "Scan", &pb.ScanRequest{}, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Message != "bad header" || Classify(err) != ActionGiveUp {
		t.Fatalf("err = %v (classified %s)", err, Classify(err))
	}
}

// TestConnSendBy checks that a request whose send-by time passed is not
// written at all, that the connection stays usable, and that one sent in
// time waits for its answer past its send-by time.
func TestConnSendBy(t *testing.T) {
	c, fs := startFake(t)
	got := make(chan *fakeRequest, 2)
	go func() {
		for {
			r, err := fs.read()
			if err != nil {
				return
			}
			got <- r
		}
	}()
	late := WithSendBy(context.Background(), time.Now().Add(-time.Millisecond))
	if _, err := c.call(late, "LateBulkLoad", &pb.ScanRequest{}, nil); !errors.Is(err, ErrSendTooLate) {
		t.Fatalf("late call: err = %v, want ErrSendTooLate", err)
	}
	inTime := WithSendBy(context.Background(), time.Now().Add(time.Minute))
	done := make(chan error, 1)
	go func() {
		_, err := c.call(inTime, "BulkLoadHFile", &pb.ScanRequest{}, nil)
		done <- err
	}()
	r := <-got
	if r.hdr.GetMethodName() != "BulkLoadHFile" {
		t.Fatalf("server got %q first; the late request must not be sent", r.hdr.GetMethodName())
	}
	select {
	case extra := <-got:
		t.Fatalf("the late request reached the server: call %d", extra.hdr.GetCallId())
	default:
	}
	if err := fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r.hdr.GetCallId())}, &pb.GetResponse{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("call sent in time: %v", err)
	}
}
