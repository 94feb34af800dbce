package throttle

import (
	"context"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestProbeReachesEveryRegionServer spreads a four-region table over the
// source's region servers and checks that the prober lists a point on each
// server holding a region, at a row that exists, and sends probes to all of
// them.
func TestProbeReachesEveryRegionServer(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	table := copytest.CreateSource(t, env, "probe")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(80), 1, time.Now().UnixMilli()-10_000, false)
	regions, err := env.Source.Regions(ctx, table)
	if err != nil || len(regions) != 4 {
		t.Fatalf("regions: %d, %v", len(regions), err)
	}
	servers := map[string]bool{}
	for _, r := range regions {
		servers[addr(r.Server)] = true
	}
	if len(servers) < 2 {
		// Put the last region on another server.
		to, err := env.Source.Move(ctx, regions[3].EncodedName, "")
		if err != nil {
			t.Fatalf("move region %s: %v", regions[3].EncodedName, err)
		}
		t.Logf("moved region %s to %s", regions[3].EncodedName, to)
		if regions, err = env.Source.Regions(ctx, table); err != nil {
			t.Fatal(err)
		}
		clear(servers)
		for _, r := range regions {
			servers[addr(r.Server)] = true
		}
	}
	if len(servers) < 2 {
		t.Fatalf("the table's regions are on %d server(s); the test needs two", len(servers))
	}
	c := copytest.DialCluster(t, env.Source)
	points, err := Points(ctx, c, table)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != len(regions) || len(byServer(points)) != len(servers) {
		t.Fatalf("points %+v; want one a region (%d) on each of %v", points, len(regions), servers)
	}
	for _, p := range points {
		if !servers[p.Server] {
			t.Errorf("point %+v on a server that holds no region of the table (%v)", p, servers)
		}
		res, err := c.Get(ctx, table, hbaseGet(p.Row))
		if err != nil || len(res.Cells) == 0 {
			t.Errorf("point %+v: row not found (%d cells, %v)", p, len(res.Cells), err)
		}
	}

	p := &Prober{Client: c, Table: table, Rate: 20, Timeout: 5 * time.Second}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var ok, failed int
	err = p.Run(pctx, func(pr Probe) {
		if pr.Err {
			failed++
		} else {
			ok++
		}
		got := p.Servers()
		for s := range servers {
			if got[s] < 3 {
				return
			}
		}
		cancel() // every server probed three times
	})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Servers()
	for s := range servers {
		if got[s] < 3 {
			t.Errorf("server %s probed %d times; want at least 3 (probes: %v)", s, got[s], got)
		}
	}
	if len(got) != len(servers) {
		t.Errorf("probed %v; want exactly the servers %v", got, servers)
	}
	if ok == 0 {
		t.Errorf("no probe succeeded (%d failed)", failed)
	}
	t.Logf("probes: %d ok, %d failed, per server %v", ok, failed, got)
}

// addr turns the harness's host,port,startcode into host:port.
func addr(server string) string {
	parts := strings.Split(server, ",")
	if len(parts) < 2 {
		return server
	}
	return parts[0] + ":" + parts[1]
}

func hbaseGet(row []byte) hbase.Get { return hbase.Get{Row: row} }
