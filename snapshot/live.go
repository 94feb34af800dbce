package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/retry"
)

// Live is what PinLive asks of the source cluster; *hbase.Client has it.
type Live interface {
	TableDescriptor(ctx context.Context, table string) (*hbase.TableDescriptor, error)
	Regions(ctx context.Context, table string) ([]*hbase.Region, error)
	Flush(ctx context.Context, r *hbase.Region) (hbase.FlushResult, error)
	StoreFiles(ctx context.Context, r *hbase.Region) ([]string, error)
}

// ErrUnsettled reports a live pin that could not be made: a region whose
// flush kept meeting a flush under way (or a region refusing writes), or a
// region not open. A snapshot can still pin the table.
var ErrUnsettled = errors.New("live pin not settled")

// PinLive pins table's inputs without a snapshot: it flushes every region
// (hbase.Client.Flush) until the flush settles, so that every edit a region
// held when it was asked is in a store file, then takes the store files each
// region's server has open (hbase.Client.StoreFiles) and reads their facts as
// Read does a snapshot's. Info.Name is empty and Info.Created is when the
// flushes were asked for.
//
// What it gives up against a snapshot is the pin: a file compacted away
// after the listing moves to the archive, where the readers look for it
// (storeread.ArchiveFallback), and the master's cleaner deletes it from there
// once its TTL (hbase.master.hfilecleaner.ttl, 5 minutes by default) is past.
// So it suits copies that read their inputs within minutes, like a
// relocation's catch-up windows; it costs a flush and one listing per region
// against a snapshot procedure's seconds.
//
// A region not open, a region that split or merged meanwhile, or a flush
// that does not settle fails it with an error matching ErrUnsettled (or the
// client's error): nothing is left behind, and a snapshot can pin the table
// instead.
func PinLive(ctx context.Context, c Live, src fsys.Reader, rootDir, table string, opts Options) (*Pinned, error) {
	opts = opts.withDefaults()
	start := time.Now()
	what := "live pin of table " + table
	d, err := c.TableDescriptor(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := checkFamilies(*d); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	regions, err := c.Regions(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if lim := opts.Limits.withDefaults(); len(regions) > lim.MaxRegions {
		return nil, fmt.Errorf("%s: %d regions, limit %d: %w", what, len(regions), lim.MaxRegions, ErrTooLarge)
	}
	m := &Manifest{Info: Info{Table: table, Created: start, Type: TypeFlush, Version: manifestVersion}, Schema: *d}
	for _, r := range regions {
		if r.Server.IsZero() {
			return nil, fmt.Errorf("%s: region %s is not open on any server: %w", what, r.EncodedName, ErrUnsettled)
		}
		m.Regions = append(m.Regions, RegionInfo{EncodedName: r.EncodedName, StartKey: r.StartKey, EndKey: r.EndKey, ID: r.ID})
	}
	if err := checkCoverage(Readable(m.Regions)); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ns, qual := splitTable(table)
	lists := make([][]ManifestFile, len(regions))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(opts.Parallelism, 1))
	for i, r := range regions {
		g.Go(func() error {
			if err := settle(gctx, c, r, settleWait); err != nil {
				return err
			}
			paths, err := c.StoreFiles(gctx, r)
			if err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			for _, p := range paths {
				f, err := liveFile(p, ns, qual, r.EncodedName)
				if err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
				lists[i] = append(lists[i], f)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, l := range lists {
		m.Files = append(m.Files, l...)
	}
	opts.Logger.Debug("regions flushed and listed", "table", table, "regions", len(regions), "files", len(m.Files),
		"took", time.Since(start))
	return load(ctx, src, rootDir, m, "live pin", opts, start)
}

// settle flushes r until the flush settles (hbase.FlushResult.Settled),
// waiting as wait says between tries (settleWait).
func settle(ctx context.Context, c Live, r *hbase.Region, wait func(attempt int) (time.Duration, bool)) error {
	for attempt := 0; ; attempt++ {
		res, err := c.Flush(ctx, r)
		if err != nil {
			return fmt.Errorf("flush region %s: %w", r.EncodedName, err)
		}
		if res.Settled() {
			return nil
		}
		d, again := wait(attempt)
		if !again {
			return fmt.Errorf("region %s: %d flushes in %s found its server flushing it already or refusing writes to it: %w",
				r.EncodedName, attempt+1, settleTotal, ErrUnsettled)
		}
		if err := retry.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// settleWait is the wait before asking again for a flush whose attempt-th
// try (0 for the first) did not settle, and whether to ask at all: 50 ms
// doubling to 1 s, for about settleTotal in all. A flush under way usually
// ends in well under a second; one that takes longer (a region server
// short of memory flushing many regions) is better left to a snapshot.
func settleWait(attempt int) (time.Duration, bool) {
	var sum time.Duration
	for i := 0; ; i++ {
		d := retry.Backoff{Initial: 50 * time.Millisecond, Max: time.Second}.DelayAt(i, 0)
		if sum+d > settleTotal {
			return 0, false
		}
		if i == attempt {
			return d, true
		}
		sum += d
	}
}

// settleTotal bounds the waits of settleWait.
const settleTotal = 5 * time.Second

// liveFile parses a store file path a region server listed for region of
// table ns:qual: "<root>/data/<ns>/<qual>/<region>/<family>/<name>", maybe
// with a scheme and authority before. The root is the server's, and may be
// spelt otherwise than ours (a URI, another NameNode address), so only the
// part from "data" on is read; the file is then found under our root as a
// manifest's is (Resolve).
func liveFile(p, ns, qual, region string) (ManifestFile, error) {
	parts := strings.Split(strings.TrimRight(p, "/"), "/")
	if len(parts) < 6 {
		return ManifestFile{}, fmt.Errorf("region %s: store file path %q is not <root>/data/<namespace>/<table>/<region>/<family>/<file>: %w", region, p, ErrCorrupt)
	}
	tail := parts[len(parts)-6:]
	if tail[0] != "data" || tail[1] != ns || tail[2] != qual || tail[3] != region {
		return ManifestFile{}, fmt.Errorf("region %s: store file path %q is not under data/%s/%s/%s: %w", region, p, ns, qual, region, ErrCorrupt)
	}
	f := ManifestFile{Region: region, Family: tail[4], Name: tail[5]}
	if _, err := ParseFileName(f.Name, false); err != nil {
		return ManifestFile{}, fmt.Errorf("region %s: %w", region, err)
	}
	return f, nil
}
