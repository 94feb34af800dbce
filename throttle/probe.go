package throttle

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"rangecopy/hbase"
)

// Defaults of a Prober.
const (
	DefaultProbeRate    = 5 // probes per second, in total
	DefaultProbeTimeout = time.Second
	DefaultRefresh      = 30 * time.Second
)

// Point is where probes read: a region on a server.
type Point struct {
	// Server is the region server that held the region when the points were
	// listed ("host:port").
	Server string
	// Region names the region; Row is its first row (or its start key when
	// the region is empty); Start and End are its keys (End empty: the
	// table's end).
	Region     string
	Row        []byte
	Start, End []byte
}

// Points lists one probe point per region of table that has a server,
// in key order, each with its first row found with a one-row scan.
// Regions without a server (in transition) are left out.
func Points(ctx context.Context, c *hbase.Client, table string) ([]Point, error) {
	regions, err := c.Regions(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("throttle: list the regions of %s: %w", table, err)
	}
	var out []Point
	for _, r := range regions {
		if r.Server.IsZero() || r.Offline {
			continue
		}
		srv := r.Server.Addr()
		row, err := firstRow(ctx, c, table, r)
		if err != nil {
			return nil, fmt.Errorf("throttle: first row of region %s on %s: %w", r, srv, err)
		}
		out = append(out, Point{Server: srv, Region: r.String(), Row: row, Start: r.StartKey, End: r.EndKey})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("throttle: no region of %s has a server", table)
	}
	return out, nil
}

// byServer groups points by server, the servers in the order their first
// point comes. Pure.
func byServer(points []Point) [][]Point {
	var out [][]Point
	at := map[string]int{}
	for _, p := range points {
		i, ok := at[p.Server]
		if !ok {
			i = len(out)
			at[p.Server] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// KeyIn returns a key drawn uniformly (by its first 8 bytes, big-endian)
// from [start, end), an empty end being the table's end: where a probe
// starts reading. It never returns a key below start or at or past a
// non-empty end. Pure but for r.
func KeyIn(start, end []byte, r *rand.Rand) []byte {
	lo := prefix64(start)
	hi := uint64(1<<64 - 1)
	if len(end) > 0 {
		hi = prefix64(end)
	}
	k := lo
	if hi > lo {
		k = lo + r.Uint64N(hi-lo)
	}
	key := binary.BigEndian.AppendUint64(nil, k)
	if bytes.Compare(key, start) < 0 {
		key = bytes.Clone(start)
	}
	if len(end) > 0 && bytes.Compare(key, end) >= 0 {
		key = bytes.Clone(start)
	}
	return key
}

// prefix64 is the first 8 bytes of key as a big-endian number, zero-padded.
func prefix64(key []byte) uint64 {
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// firstRow is the region's first row; its start key (or "\x00" for the
// table's first region) when it is empty: a Get of a missing row still
// reads the region's files.
func firstRow(ctx context.Context, c *hbase.Client, table string, r *hbase.Region) ([]byte, error) {
	sc := c.Scan(table, hbase.Scan{StartRow: r.StartKey, StopRow: r.EndKey, Caching: 1, MaxResultSize: 64 << 10})
	defer sc.Close(context.WithoutCancel(ctx))
	if sc.Next(ctx) {
		return sc.Result().Row, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(r.StartKey) == 0 {
		return []byte{0}, nil
	}
	return r.StartKey, nil
}

// Probe is one probe's outcome at a point.
type Probe struct {
	Sample
	Point Point
}

// Prober reads small amounts of the source table, a few times a second in
// total, in turn on each region server, each read bounded by a timeout.
// A probe reads the first row at or after a random key of a random region
// of the server, with the block cache bypassed, so that it measures what a
// read the cache cannot serve costs the server now (its disks and
// DataNodes, which the copy's reads compete for), not a cached row's
// round trip.
type Prober struct {
	// Client reaches the source cluster; Table is the table probed.
	Client *hbase.Client
	Table  string
	// Rate is the probes per second in total (DefaultProbeRate).
	Rate float64
	// Timeout bounds one probe (DefaultProbeTimeout); a probe that fails
	// counts as taking it.
	Timeout time.Duration
	// Refresh is how often the points are listed again, as regions move
	// (DefaultRefresh).
	Refresh time.Duration
	// Logger receives the prober's warnings; nil discards.
	Logger *slog.Logger

	mu      sync.Mutex
	servers map[string]int64
}

// Run probes until ctx ends, handing every probe to out (from this
// goroutine). It returns the error of the first listing of the points when
// that fails, else nil when ctx ends.
func (p *Prober) Run(ctx context.Context, out func(Probe)) error {
	setDefault(&p.Rate, DefaultProbeRate)
	setDefault(&p.Timeout, DefaultProbeTimeout)
	setDefault(&p.Refresh, DefaultRefresh)
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	points, err := Points(lctx, p.Client, p.Table)
	cancel()
	if err != nil {
		return err
	}
	listed := time.Now()
	servers := byServer(points)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	every := time.Duration(float64(time.Second) / p.Rate)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if time.Since(listed) >= p.Refresh {
			lctx, cancel := context.WithTimeout(ctx, p.Timeout*5)
			fresh, err := Points(lctx, p.Client, p.Table)
			cancel()
			if err == nil {
				servers = byServer(fresh)
			} else if ctx.Err() == nil {
				log.Warn("list probe points again; keeping the old ones", "table", p.Table, "err", err)
			}
			listed = time.Now()
		}
		on := servers[i%len(servers)]
		pt := on[rng.IntN(len(on))]
		pr := p.probe(ctx, pt, KeyIn(pt.Start, pt.End, rng))
		if ctx.Err() != nil {
			return nil
		}
		out(pr)
	}
}

// probe reads the first row at or after key in pt's region (one small
// scan, blocks not cached) and times it up to that row.
func (p *Prober) probe(ctx context.Context, pt Point, key []byte) Probe {
	gctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	start := time.Now()
	sc := p.Client.Scan(p.Table, hbase.Scan{StartRow: key, StopRow: pt.End, Caching: 1, MaxResultSize: 64 << 10, NoCacheBlocks: true})
	sc.Next(gctx)
	err := sc.Err()
	took := time.Since(start)
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), p.Timeout)
	sc.Close(cctx)
	ccancel()
	pr := Probe{Sample: Sample{At: start, Latency: took}, Point: pt}
	if err != nil {
		pr.Err, pr.Latency = true, max(took, p.Timeout)
		if !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && p.Logger != nil {
			p.Logger.Debug("probe failed", "server", pt.Server, "err", err)
		}
	}
	p.mu.Lock()
	if p.servers == nil {
		p.servers = map[string]int64{}
	}
	p.servers[pt.Server]++
	p.mu.Unlock()
	return pr
}

// Servers is how many probes went to each region server so far.
func (p *Prober) Servers() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.servers))
	for k, v := range p.servers {
		out[k] = v
	}
	return out
}
