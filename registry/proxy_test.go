package registry

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// zkProxy sits between a registry and a ZooKeeper server and reads the
// session id and password out of each connect response, so a test can end a
// session the way a server does when it expires it: another connection
// resumes the session with its password and closes it. The original client
// then hears "session expired" when it reconnects.
type zkProxy struct {
	t        testing.TB
	upstream string
	ln       net.Listener

	mu          sync.Mutex
	passwd      map[int64][]byte
	conns       []net.Conn
	partitioned bool
}

func newZKProxy(t testing.TB, upstream string) *zkProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p := &zkProxy{t: t, upstream: upstream, ln: ln, passwd: map[int64][]byte{}}
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *zkProxy) addr() string { return p.ln.Addr().String() }

func (p *zkProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

func (p *zkProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.partitioned
		p.mu.Unlock()
		if cut {
			c.Close()
			continue
		}
		u, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go func() {
			io.Copy(u, c)
			u.Close()
		}()
		go func() {
			defer c.Close()
			// The first frame from the server answers the connect request.
			frame, err := readFrame(u)
			if err != nil {
				return
			}
			if id, pw, err := parseConnectResponse(frame); err == nil && id != 0 {
				p.mu.Lock()
				p.passwd[id] = pw
				p.mu.Unlock()
			}
			if _, err := c.Write(frame); err != nil {
				return
			}
			io.Copy(c, u)
		}()
	}
}

// partition cuts the client off: open connections are closed and new ones
// are closed as soon as they are accepted, until heal.
func (p *zkProxy) partition() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partitioned = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *zkProxy) heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partitioned = false
}

func readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > 1<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	b := make([]byte, 4+n)
	copy(b, hdr[:])
	_, err := io.ReadFull(r, b[4:])
	return b, err
}

// parseConnectResponse reads protocolVersion int32, timeOut int32, sessionId
// int64, passwd buffer from a length-prefixed frame.
func parseConnectResponse(frame []byte) (int64, []byte, error) {
	b := frame[4:]
	if len(b) < 20 {
		return 0, nil, errors.New("short connect response")
	}
	id := int64(binary.BigEndian.Uint64(b[8:16]))
	n := int(int32(binary.BigEndian.Uint32(b[16:20])))
	if n < 0 || 20+n > len(b) {
		return 0, nil, errors.New("bad password length")
	}
	return id, append([]byte(nil), b[20:20+n]...), nil
}

// expire ends a session on the server: it resumes the session on a new
// connection, straight to the server, and sends closeSession.
func (p *zkProxy) expire(session int64) {
	p.t.Helper()
	p.mu.Lock()
	pw, ok := p.passwd[session]
	p.mu.Unlock()
	if !ok {
		p.t.Fatalf("proxy saw no session %#x", session)
	}
	c, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
	if err != nil {
		p.t.Fatalf("expire: dial: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId, passwd.
	req := binary.BigEndian.AppendUint32(nil, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 30000)
	req = binary.BigEndian.AppendUint64(req, uint64(session))
	req = binary.BigEndian.AppendUint32(req, uint32(len(pw)))
	req = append(req, pw...)
	if _, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(req))), req...)); err != nil {
		p.t.Fatalf("expire: connect: %v", err)
	}
	frame, err := readFrame(c)
	if err != nil {
		p.t.Fatalf("expire: connect response: %v", err)
	}
	if id, _, err := parseConnectResponse(frame); err != nil || id != session {
		p.t.Fatalf("expire: resumed session %#x (%v), want %#x", id, err, session)
	}
	// RequestHeader: xid, type closeSession (-11).
	closeReq := binary.BigEndian.AppendUint32(nil, 1)
	closeReq = binary.BigEndian.AppendUint32(closeReq, uint32(0xfffffff5))
	if _, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(closeReq))), closeReq...)); err != nil {
		p.t.Fatalf("expire: close: %v", err)
	}
	if _, err := readFrame(c); err != nil {
		p.t.Fatalf("expire: close response: %v", err)
	}
}
