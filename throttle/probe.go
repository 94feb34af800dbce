package throttle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// Point is what one probe reads: a row of a region on a server.
type Point struct {
	// Server is the region server that held the region when the points were
	// listed ("host:port").
	Server string
	// Region names the region; Row is its first row (or its start key when
	// the region is empty).
	Region string
	Row    []byte
}

// Points lists one probe point per region server of table: the first row
// of the first region (in key order) each server holds, found with a
// one-row scan. Regions without a server (in transition) are left out.
func Points(ctx context.Context, c *hbase.Client, table string) ([]Point, error) {
	regions, err := c.Regions(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("throttle: list the regions of %s: %w", table, err)
	}
	seen := map[string]bool{}
	var out []Point
	for _, r := range regions {
		if r.Server.IsZero() || r.Offline {
			continue
		}
		srv := r.Server.Addr()
		if seen[srv] {
			continue
		}
		seen[srv] = true
		row, err := firstRow(ctx, c, table, r)
		if err != nil {
			return nil, fmt.Errorf("throttle: first row of region %s on %s: %w", r, srv, err)
		}
		out = append(out, Point{Server: srv, Region: r.String(), Row: row})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("throttle: no region of %s has a server", table)
	}
	return out, nil
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

// Prober sends small Gets to the source table, a few a second in total, in
// turn to each region server's point, each bounded by a timeout.
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
	if p.Rate <= 0 {
		p.Rate = DefaultProbeRate
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultProbeTimeout
	}
	if p.Refresh <= 0 {
		p.Refresh = DefaultRefresh
	}
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
				points = fresh
			} else if ctx.Err() == nil {
				log.Warn("list probe points again; keeping the old ones", "table", p.Table, "err", err)
			}
			listed = time.Now()
		}
		pt := points[i%len(points)]
		pr := p.probe(ctx, pt)
		if ctx.Err() != nil {
			return nil
		}
		out(pr)
	}
}

// probe sends one Get.
func (p *Prober) probe(ctx context.Context, pt Point) Probe {
	gctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	start := time.Now()
	_, err := p.Client.Get(gctx, p.Table, hbase.Get{Row: pt.Row})
	took := time.Since(start)
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
