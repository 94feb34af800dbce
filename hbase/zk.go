package hbase

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// ErrZNode reports a ZooKeeper node whose content is not what HBase writes.
var ErrZNode = errors.New("hbase: malformed znode")

const (
	zkMetaMagic   = 0xFF
	maxZKIDLength = 65000
)

var pbMagic = []byte("PBUF")

// stripZNodeMeta removes HBase's znode metadata prefix (0xFF, a 4-byte
// big-endian length, that many bytes of process id) and the "PBUF" magic,
// returning the protobuf bytes. Data without the 0xFF prefix is accepted if it
// starts with "PBUF", as HBase's own reader does.
func stripZNodeMeta(data []byte) ([]byte, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrZNode)
	}
	if data[0] == zkMetaMagic {
		if len(data) < 5 {
			return nil, fmt.Errorf("%w: %d bytes, too short for the metadata length", ErrZNode, len(data))
		}
		idLen := binary.BigEndian.Uint32(data[1:5])
		if idLen < 1 || idLen > maxZKIDLength {
			return nil, fmt.Errorf("%w: metadata length %d out of range [1, %d]", ErrZNode, idLen, maxZKIDLength)
		}
		if uint64(len(data)) < 5+uint64(idLen) {
			return nil, fmt.Errorf("%w: metadata of %d bytes, only %d left", ErrZNode, idLen, len(data)-5)
		}
		data = data[5+idLen:]
	}
	if !bytes.HasPrefix(data, pbMagic) {
		return nil, fmt.Errorf("%w: no PBUF magic", ErrZNode)
	}
	return data[len(pbMagic):], nil
}

func serverNameFromPB(sn *pb.ServerName) (ServerName, error) {
	if sn == nil || sn.GetHostName() == "" {
		return ServerName{}, fmt.Errorf("%w: no server host", ErrZNode)
	}
	if sn.GetPort() == 0 || sn.GetPort() > 65535 {
		return ServerName{}, fmt.Errorf("%w: bad port %d", ErrZNode, sn.GetPort())
	}
	return ServerName{Host: sn.GetHostName(), Port: int(sn.GetPort()), StartCode: sn.GetStartCode()}, nil
}

// parseMasterZNode decodes the content of <parent>/master.
func parseMasterZNode(data []byte) (ServerName, error) {
	b, err := stripZNodeMeta(data)
	if err != nil {
		return ServerName{}, err
	}
	var m pb.Master
	if err := proto.Unmarshal(b, &m); err != nil {
		return ServerName{}, fmt.Errorf("%w: master: %v", ErrZNode, err)
	}
	return serverNameFromPB(m.GetMaster())
}

// parseMetaZNode decodes the content of <parent>/meta-region-server.
func parseMetaZNode(data []byte) (ServerName, error) {
	b, err := stripZNodeMeta(data)
	if err != nil {
		return ServerName{}, err
	}
	var m pb.MetaRegionServer
	if err := proto.Unmarshal(b, &m); err != nil {
		return ServerName{}, fmt.Errorf("%w: meta-region-server: %v", ErrZNode, err)
	}
	return serverNameFromPB(m.GetServer())
}

// zkClient reads HBase's znodes. It holds one ZooKeeper session, opened on
// first use and reopened if it expires.
type zkClient struct {
	servers []string
	parent  string
	timeout time.Duration
	log     *slog.Logger

	mu   sync.Mutex
	conn *zk.Conn
}

type zkLogger struct{ log *slog.Logger }

// Printf logs a go-zookeeper message at debug level.
func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug("zookeeper: " + fmt.Sprintf(format, args...))
}

func (z *zkClient) session() (*zk.Conn, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.conn != nil && z.conn.State() != zk.StateExpired {
		return z.conn, nil
	}
	if z.conn != nil {
		z.conn.Close()
	}
	c, _, err := zk.Connect(z.servers, z.timeout, zk.WithLogger(zkLogger{z.log}))
	if err != nil {
		return nil, fmt.Errorf("zookeeper %v: %w", z.servers, err)
	}
	z.conn = c
	return c, nil
}

// get reads the znode <parent>/<name>.
func (z *zkClient) get(ctx context.Context, name string) ([]byte, error) {
	p := path.Join(z.parent, name)
	c, err := z.session()
	if err != nil {
		return nil, err
	}
	d, err := untilDone(ctx, func() ([]byte, error) {
		d, _, err := c.Get(p)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("zookeeper %v: get %s: %w", z.servers, p, err)
	}
	return d, nil
}

// children lists the children of <parent>/<name>, sorted.
func (z *zkClient) children(ctx context.Context, name string) ([]string, error) {
	p := path.Join(z.parent, name)
	c, err := z.session()
	if err != nil {
		return nil, err
	}
	names, err := untilDone(ctx, func() ([]string, error) {
		n, _, err := c.Children(p)
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("zookeeper %v: children of %s: %w", z.servers, p, err)
	}
	sort.Strings(names)
	return names, nil
}

// untilDone runs call, a ZooKeeper request that takes no context, and
// returns its answer, or ctx's error when ctx ends first (the request then
// runs on and its answer is dropped).
func untilDone[T any](ctx context.Context, call func() (T, error)) (T, error) {
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := call()
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// master returns the active master.
func (z *zkClient) master(ctx context.Context) (ServerName, error) {
	d, err := z.get(ctx, "master")
	if err != nil {
		return ServerName{}, err
	}
	sn, err := parseMasterZNode(d)
	if err != nil {
		return ServerName{}, fmt.Errorf("znode %s/master: %w", z.parent, err)
	}
	return sn, nil
}

// metaServer returns the server hosting hbase:meta.
func (z *zkClient) metaServer(ctx context.Context) (ServerName, error) {
	d, err := z.get(ctx, "meta-region-server")
	if err != nil {
		return ServerName{}, err
	}
	sn, err := parseMetaZNode(d)
	if err != nil {
		return ServerName{}, fmt.Errorf("znode %s/meta-region-server: %w", z.parent, err)
	}
	return sn, nil
}

func (z *zkClient) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.conn != nil {
		z.conn.Close()
		z.conn = nil
	}
}
