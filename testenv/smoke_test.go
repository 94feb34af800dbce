package testenv_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/colinmarc/hdfs/v2"
	"github.com/go-zookeeper/zk"
	"google.golang.org/protobuf/encoding/protowire"

	"rangecopy/testenv"
)

func hdfsClient(t *testing.T, c *testenv.Cluster) *hdfs.Client {
	t.Helper()
	return c.HDFS(t, "")
}

// TestHDFSWriteReadDelete writes a multi-block file to each cluster's HDFS,
// reads it back, and deletes it.
func TestHDFSWriteReadDelete(t *testing.T) {
	env := testenv.Get(t)
	for _, c := range []*testenv.Cluster{env.Source, env.Target} {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			client := hdfsClient(t, c)
			dir := "/tmp/" + testenv.UniqueName(t, "hdfs")
			if err := client.MkdirAll(dir, 0o755); err != nil {
				t.Fatalf("mkdir %s: %v", dir, err)
			}
			t.Cleanup(func() { client.RemoveAll(dir) })
			data := make([]byte, 3<<20+12345)
			if _, err := rand.Read(data); err != nil {
				t.Fatal(err)
			}
			name := path.Join(dir, "blob")
			writeBlocks(t, client, name, data)
			got, err := client.ReadFile(name)
			if err != nil {
				t.Fatalf("read %s: %v", name, err)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("read back %d bytes from %s, not the %d written", len(got), name, len(data))
			}
			if err := client.Remove(name); err != nil {
				t.Fatalf("remove %s: %v", name, err)
			}
			if _, err := client.Stat(name); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("stat %s after remove: %v, want not exist", name, err)
			}
		})
	}
}

// closeFile closes an HDFS file, retrying while the NameNode says the last
// block is not yet minimally replicated (the DataNodes have acknowledged all
// data, but have not yet told the NameNode), as the Java client does.
// writeBlocks writes data to name in 1 MiB blocks (four, each on two DataNodes). The
// NameNode refuses a file's next block (NotReplicatedYetException) until a DataNode has
// reported the one before, which it does a moment after acknowledging it; HDFS's Java client
// asks again a few times, but colinmarc/hdfs gives up and its writer is then broken, so the
// file is written again from the start, at most five times.
func writeBlocks(t *testing.T, client *hdfs.Client, name string, data []byte) {
	t.Helper()
	pause := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		w, err := client.CreateFile(name, 2, 1<<20, 0o644)
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		_, err = w.Write(data)
		if err == nil {
			closeFile(t, w, name)
			return
		}
		if !strings.Contains(err.Error(), "NotReplicatedYetException") || attempt == 5 {
			t.Fatalf("write %s: %v", name, err)
		}
		t.Logf("write %s, attempt %d: %v; writing it again", name, attempt, err)
		w.Close()
		if err := client.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("remove %s to write it again: %v", name, err)
		}
		time.Sleep(pause)
		pause *= 2
	}
}

func closeFile(t *testing.T, w *hdfs.FileWriter, name string) {
	t.Helper()
	pause := 20 * time.Millisecond
	for i := 0; ; i++ {
		err := w.Close()
		if err == nil {
			return
		}
		if !hdfs.IsErrReplicating(err) || i == 12 {
			t.Fatalf("close %s: %v", name, err)
		}
		time.Sleep(pause)
		pause = min(2*pause, 2*time.Second)
	}
}

// serverName is an HBase server name as a znode holds it.
type serverName struct {
	host      string
	port      uint64
	startCode uint64
}

func (s serverName) String() string { return fmt.Sprintf("%s,%d,%d", s.host, s.port, s.startCode) }

// decodeZnode strips HBase's znode framing (0xFF, 4-byte id length, id,
// "PBUF") and returns the ServerName in field 1 of the protobuf that follows
// (MetaRegionServer.server and Master.master both sit there).
func decodeZnode(b []byte) (serverName, error) {
	if len(b) < 5 || b[0] != 0xFF {
		return serverName{}, fmt.Errorf("no 0xFF magic in %q", b)
	}
	idLen := binary.BigEndian.Uint32(b[1:5])
	if uint64(idLen) > uint64(len(b)-5) {
		return serverName{}, fmt.Errorf("id length %d past the end of %d bytes", idLen, len(b))
	}
	rest := b[5+idLen:]
	if !bytes.HasPrefix(rest, []byte("PBUF")) {
		return serverName{}, fmt.Errorf("no PBUF after the id in %q", b)
	}
	sn, ok := field(rest[4:], 1)
	if !ok {
		return serverName{}, fmt.Errorf("no server name in %q", b)
	}
	host, ok := field(sn, 1)
	if !ok {
		return serverName{}, fmt.Errorf("no host in server name %q", sn)
	}
	var out serverName
	out.host = string(host)
	for len(sn) > 0 {
		num, typ, n := protowire.ConsumeTag(sn)
		if n < 0 {
			return serverName{}, protowire.ParseError(n)
		}
		sn = sn[n:]
		if typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(sn)
			if n < 0 {
				return serverName{}, protowire.ParseError(n)
			}
			switch num {
			case 2:
				out.port = v
			case 3:
				out.startCode = v
			}
			sn = sn[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, sn)
		if n < 0 {
			return serverName{}, protowire.ParseError(n)
		}
		sn = sn[n:]
	}
	return out, nil
}

// field returns the first length-delimited field num of a protobuf message.
func field(b []byte, num protowire.Number) ([]byte, bool) {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, false
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			return v, l >= 0
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return nil, false
		}
		b = b[l:]
	}
	return nil, false
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

func zkConn(t *testing.T, c *testenv.Cluster) *zk.Conn {
	t.Helper()
	conn, _, err := zk.Connect([]string{c.ZKQuorum}, 10*time.Second, zk.WithLogger(quietLogger{}))
	if err != nil {
		t.Fatalf("connect to %s ZooKeeper %s: %v", c.Name, c.ZKQuorum, err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// TestZooKeeperServerNames reads each cluster's master and meta-region-server
// znodes and checks that they name its live master and a live region server.
func TestZooKeeperServerNames(t *testing.T) {
	env := testenv.Get(t)
	for _, c := range []*testenv.Cluster{env.Source, env.Target} {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			conn := zkConn(t, c)
			status, err := c.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := conn.Get(c.ZNodeParent + "/master")
			if err != nil {
				t.Fatalf("get %s/master: %v", c.ZNodeParent, err)
			}
			master, err := decodeZnode(b)
			if err != nil {
				t.Fatalf("decode %s/master: %v", c.ZNodeParent, err)
			}
			if master.String() != status.Master {
				t.Errorf("%s/master names %s, the cluster's master is %s", c.ZNodeParent, master, status.Master)
			}
			if master.host != "localhost" || master.port == 0 || master.startCode == 0 {
				t.Errorf("master server name %s: want host localhost, a port and a start code", master)
			}
			b, _, err = conn.Get(c.ZNodeParent + "/meta-region-server")
			if err != nil {
				t.Fatalf("get %s/meta-region-server: %v", c.ZNodeParent, err)
			}
			meta, err := decodeZnode(b)
			if err != nil {
				t.Fatalf("decode %s/meta-region-server: %v", c.ZNodeParent, err)
			}
			if !contains(status.LiveRegionServers, meta.String()) {
				t.Errorf("hbase:meta is on %s, not a live region server %v", meta, status.LiveRegionServers)
			}
		})
	}
}

func TestDecodeZnodeRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, {0xFF}, {0xFF, 0, 0, 0, 9, 'x'}, {0xFF, 0, 0, 0, 0, 'P', 'B'}, {0x00, 0, 0, 0, 0}} {
		if _, err := decodeZnode(b); err == nil {
			t.Errorf("decodeZnode(%q) = nil error", b)
		}
	}
}

// TestRegionServerStopStart starts a region server of its own, moves a table
// of its own onto it, stops it, and checks that ZooKeeper and the master
// report it gone and that the table's rows survive on another server.
func TestRegionServerStopStart(t *testing.T) {
	env := testenv.Get(t)
	for _, c := range []*testenv.Cluster{env.Source, env.Target} {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			conn := zkConn(t, c)
			rsZnode := func(name string) (bool, error) {
				kids, _, err := conn.Children(c.ZNodeParent + "/rs")
				return contains(kids, name), err
			}

			rs, err := c.StartRegionServer(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := rsZnode(rs); err != nil || !ok {
				t.Fatalf("new region server %s in %s/rs: %v, %v", rs, c.ZNodeParent, ok, err)
			}
			table := newTable(t, ctx, c, "rsstop", nil)
			cells := sampleCells(50, 1000)
			if err := c.Mutate(ctx, table, cells); err != nil {
				t.Fatal(err)
			}
			regions, err := c.Regions(ctx, table)
			if err != nil || len(regions) != 1 {
				t.Fatalf("regions of %s: %v, %v", table, regions, err)
			}
			if _, err := c.Move(ctx, regions[0].EncodedName, rs); err != nil {
				t.Fatal(err)
			}
			if regions, err = c.Regions(ctx, table); err != nil || regions[0].Server != rs {
				t.Fatalf("after the move, %s is on %v (%v), want %s", table, regions, err, rs)
			}

			if err := c.StopRegionServer(ctx, rs); err != nil {
				t.Fatal(err)
			}
			// Bounded: waitFor polls until its context ends.
			wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			defer cancel()
			waitFor(t, wctx, rs+" gone from ZooKeeper", func() (bool, error) {
				ok, err := rsZnode(rs)
				return !ok, err
			})
			status, err := c.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if contains(status.LiveRegionServers, rs) {
				t.Errorf("master still lists %s live: %v", rs, status.LiveRegionServers)
			}
			if !contains(status.DeadRegionServers, rs) {
				t.Errorf("master does not list %s dead: %v", rs, status.DeadRegionServers)
			}
			regions, err = c.Regions(ctx, table)
			if err != nil || len(regions) != 1 || regions[0].Server == rs || !contains(status.LiveRegionServers, regions[0].Server) {
				t.Fatalf("after stopping %s, %s is on %v (%v), want a live server", rs, table, regions, err)
			}
			got, err := c.Scan(ctx, table, testenv.ScanSpec{})
			if err != nil {
				t.Fatal(err)
			}
			sameCells(t, "rows after the region server died", got, cells)

			// Start one again: the cluster is back to its size, and the new
			// server is live in ZooKeeper and the master.
			rs2, err := c.StartRegionServer(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ok, err := rsZnode(rs2); err != nil || !ok {
				t.Fatalf("restarted region server %s in %s/rs: %v, %v", rs2, c.ZNodeParent, ok, err)
			}
			if status, err = c.Status(ctx); err != nil || !contains(status.LiveRegionServers, rs2) {
				t.Fatalf("master live servers %v (%v), want %s among them", status.LiveRegionServers, err, rs2)
			}
			if err := c.StopRegionServer(ctx, rs2); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDataNodeStopStart stops one of the source's three DataNodes, checks that
// the NameNode reports it dead and that a file written before is still read
// (from the other replica), then starts it again.
func TestDataNodeStopStart(t *testing.T) {
	env := testenv.Get(t)
	c := env.Source
	ctx := t.Context()
	client := hdfsClient(t, c)
	dir := "/tmp/" + testenv.UniqueName(t, "dn")
	if err := client.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.RemoveAll(dir) })
	data := bytes.Repeat([]byte("replicated on two DataNodes\n"), 100000)
	name := path.Join(dir, "file")
	w, err := client.CreateFile(name, 2, 1<<20, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	closeFile(t, w, name)

	before, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.LiveDataNodes) != 3 {
		t.Fatalf("live DataNodes before = %v, want 3", before.LiveDataNodes)
	}
	victim := before.LiveDataNodes[0]
	if err := c.StopDataNode(ctx, victim); err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			if err := c.StartDataNode(ctx, victim); err != nil {
				t.Errorf("start DataNode %s again: %v", victim, err)
			}
		}
	})
	during, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if contains(during.LiveDataNodes, victim) || !contains(during.DeadDataNodes, victim) {
		t.Fatalf("after stopping %s: live %v, dead %v", victim, during.LiveDataNodes, during.DeadDataNodes)
	}
	got, err := client.ReadFile(name)
	if err != nil {
		t.Fatalf("read %s with DataNode %s down: %v", name, victim, err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes with a DataNode down, want %d", len(got), len(data))
	}

	if err := c.StartDataNode(ctx, victim); err != nil {
		t.Fatal(err)
	}
	restarted = true
	after, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(after.LiveDataNodes, victim) || len(after.LiveDataNodes) != 3 {
		t.Fatalf("after restarting %s: live %v", victim, after.LiveDataNodes)
	}
	if strings.Contains(strings.Join(after.DeadDataNodes, " "), victim) {
		t.Fatalf("after restarting %s it is still dead: %v", victim, after.DeadDataNodes)
	}
}
