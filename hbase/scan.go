package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// Column names a family, or one column of a family when Qualifier is not nil.
type Column struct {
	Family    []byte
	Qualifier []byte
}

// TimeRange selects cells with Min <= timestamp < Max. The zero value means
// all time; Max 0 means no upper bound.
type TimeRange struct {
	Min, Max uint64
}

func (t TimeRange) pb() *pb.TimeRange {
	if t.Min == 0 && t.Max == 0 {
		return nil
	}
	max := t.Max
	if max == 0 {
		max = math.MaxInt64
	}
	return &pb.TimeRange{From: proto.Uint64(t.Min), To: proto.Uint64(max)}
}

// Result is the cells of one row (or part of a row when a batch limit
// applies), in HBase's order.
type Result struct {
	Row   []byte
	Cells []Cell
}

// Scan describes a scan of a table.
type Scan struct {
	StartRow []byte // inclusive; nil is the start of the table
	StopRow  []byte // exclusive; nil or empty is the end of the table (as a region's end key)
	// Columns limits the scan to families or columns; nil scans all.
	Columns   []Column
	TimeRange TimeRange
	// MaxVersions per column; 0 means 1.
	MaxVersions int
	// Raw returns delete markers and deleted cells too.
	Raw bool
	// Caching is the number of rows fetched per RPC; default 100.
	Caching int
	// BatchSize caps the cells per Result; 0 returns whole rows.
	BatchSize int
	// MaxResultSize caps the bytes per RPC; 0 uses the server's default.
	MaxResultSize uint64
	// NoCacheBlocks keeps the scanned blocks out of the server's block cache.
	NoCacheBlocks bool
}

// rawAttr is the Scan attribute HBase's Scan.setRaw sets.
const rawAttr = "_raw_"

func columnsPB(cols []Column) []*pb.Column {
	var out []*pb.Column
	idx := map[string]*pb.Column{}
	for _, c := range cols {
		pc := idx[string(c.Family)]
		if pc == nil {
			pc = &pb.Column{Family: c.Family}
			idx[string(c.Family)] = pc
			out = append(out, pc)
		}
		if c.Qualifier != nil {
			pc.Qualifier = append(pc.Qualifier, c.Qualifier)
		}
	}
	return out
}

func (s *Scan) pb() *pb.Scan {
	p := &pb.Scan{
		StartRow:  s.StartRow,
		StopRow:   s.StopRow,
		Column:    columnsPB(s.Columns),
		TimeRange: s.TimeRange.pb(),
	}
	if s.MaxVersions > 1 {
		p.MaxVersions = proto.Uint32(uint32(s.MaxVersions))
	}
	if s.Raw {
		p.Attribute = append(p.Attribute, &pb.NameBytesPair{Name: proto.String(rawAttr), Value: []byte{0xFF}})
	}
	if s.BatchSize > 0 {
		p.BatchSize = proto.Uint32(uint32(s.BatchSize))
	}
	if s.MaxResultSize > 0 {
		p.MaxResultSize = proto.Uint64(s.MaxResultSize)
	}
	if s.NoCacheBlocks {
		p.CacheBlocks = proto.Bool(false)
	}
	p.Caching = proto.Uint32(uint32(s.caching()))
	return p
}

func (s *Scan) caching() int {
	if s.Caching > 0 {
		return s.Caching
	}
	return 100
}

// cellsFromPB converts protobuf cells.
func cellsFromPB(pcs []*pb.Cell) []Cell {
	cells := make([]Cell, len(pcs))
	for i, pc := range pcs {
		cells[i] = Cell{Row: pc.GetRow(), Family: pc.GetFamily(), Qualifier: pc.GetQualifier(),
			Timestamp: pc.GetTimestamp(), Type: CellType(pc.GetCellType()), Value: pc.GetValue()}
	}
	return cells
}

// resultFromPB builds a Result from a protobuf Result and its share of the
// cell block, returning the unused rest of the block.
func resultFromPB(r *pb.Result, cellBlock []byte) (Result, []byte, error) {
	cells := cellsFromPB(r.GetCell())
	if n := r.GetAssociatedCellCount(); n > 0 {
		cb, rest, err := decodeCellBlock(cellBlock, int(n))
		if err != nil {
			return Result{}, nil, err
		}
		cells = append(cells, cb...)
		cellBlock = rest
	} else if n < 0 {
		return Result{}, nil, fmt.Errorf("%w: negative associated cell count %d", ErrProtocol, n)
	}
	var row []byte
	if len(cells) > 0 {
		row = cells[0].Row
	}
	return Result{Row: row, Cells: cells}, cellBlock, nil
}

// scanResults decodes the results of a ScanResponse: protobuf results, or
// cells_per_result counts over the cell block.
func scanResults(resp *pb.ScanResponse, cellBlock []byte) ([]Result, error) {
	if len(resp.GetResults()) > 0 {
		out := make([]Result, 0, len(resp.GetResults()))
		for _, r := range resp.GetResults() {
			res, rest, err := resultFromPB(r, cellBlock)
			if err != nil {
				return nil, err
			}
			cellBlock = rest
			out = append(out, res)
		}
		return out, nil
	}
	counts := resp.GetCellsPerResult()
	if len(counts) == 0 {
		return nil, nil
	}
	if len(counts) > len(cellBlock)/(kvLenSize+kvFixedSize+keyFixedOverhead)+1 {
		return nil, fmt.Errorf("%w: %d results announced for a cell block of %d bytes", ErrProtocol, len(counts), len(cellBlock))
	}
	out := make([]Result, 0, len(counts))
	for _, n := range counts {
		cells, rest, err := decodeCellBlock(cellBlock, int(n))
		if err != nil {
			return nil, err
		}
		cellBlock = rest
		var row []byte
		if len(cells) > 0 {
			row = cells[0].Row
		}
		out = append(out, Result{Row: row, Cells: cells})
	}
	return out, nil
}

// regionScan is an open scanner on one region: no retries, no region
// changes. next returns done when the region (or the whole scan) has no more
// rows; the server has then closed the scanner.
type regionScan struct {
	c      *Client
	region *Region
	scan   *pb.Scan
	rows   int

	id      uint64
	open    bool
	closed  bool
	seq     uint64
	allDone bool // the server said no more results for the whole scan
}

func (rs *regionScan) next(ctx context.Context) ([]Result, bool, error) {
	req := &pb.ScanRequest{NumberOfRows: proto.Uint32(uint32(rs.rows)), ClientHandlesHeartbeats: proto.Bool(true)}
	if !rs.open {
		req.Region = rs.region.specifier()
		req.Scan = rs.scan
	} else {
		req.ScannerId = proto.Uint64(rs.id)
		req.NextCallSeq = proto.Uint64(rs.seq)
	}
	var resp pb.ScanResponse
	cb, err := rs.c.rpc(ctx, rs.region.Server, ClientService, "Scan", req, nil, &resp)
	if err != nil {
		return nil, false, err
	}
	if !rs.open {
		rs.open = true
		rs.id = resp.GetScannerId()
	} else {
		rs.seq++
	}
	results, err := scanResults(&resp, cb)
	if err != nil {
		return nil, false, err
	}
	done := false
	if resp.MoreResults != nil && !resp.GetMoreResults() {
		done, rs.allDone = true, true
	}
	if resp.MoreResultsInRegion != nil {
		if !resp.GetMoreResultsInRegion() {
			done = true
		}
	} else if len(results) == 0 && !resp.GetHeartbeatMessage() {
		done = true
	}
	if done {
		rs.closed = true
	}
	return results, done, nil
}

// close releases the server-side scanner if it is still open. Errors are
// logged, not returned: a scanner left open expires with its lease.
func (rs *regionScan) close(ctx context.Context) {
	if !rs.open || rs.closed {
		return
	}
	rs.closed = true
	req := &pb.ScanRequest{ScannerId: proto.Uint64(rs.id), NumberOfRows: proto.Uint32(0), CloseScanner: proto.Bool(true)}
	if _, err := rs.c.rpc(ctx, rs.region.Server, ClientService, "Scan", req, nil, nil); err != nil {
		rs.c.log.Debug("hbase: close scanner", "region", rs.region.String(), "server", rs.region.Server.Addr(), "err", err)
	}
}

// Scanner streams the rows of a scan across regions, fetching one batch at a
// time on demand.
//
//	sc := client.Scan(table, hbase.Scan{StartRow: a, StopRow: b})
//	defer sc.Close(ctx)
//	for sc.Next(ctx) {
//		r := sc.Result()
//	}
//	if err := sc.Err(); err != nil { ... }
type Scanner struct {
	c     *Client
	table string
	scan  Scan

	rs        *regionScan
	nextStart []byte // where to open the next region scanner
	inclStart bool
	lastRow   []byte
	lastCells int // cells of lastRow returned so far (several Results with BatchSize)
	skip      int // cells of lastRow to drop after a restart inside it
	buf       []Result
	cur       Result
	done      bool
	err       error
}

// Scan returns a scanner over table. No I/O happens until Next.
func (c *Client) Scan(table string, s Scan) *Scanner {
	return &Scanner{c: c, table: table, scan: s, nextStart: s.StartRow, inclStart: true}
}

// Next advances to the next Result, fetching a batch from the server when
// the buffered ones are used up. It returns false at the end or on error.
func (sc *Scanner) Next(ctx context.Context) bool {
	if sc.err == nil && !sc.done && len(sc.scan.StopRow) > 0 && bytes.Compare(sc.scan.StartRow, sc.scan.StopRow) > 0 {
		sc.err = fmt.Errorf("scan %s: start row %q sorts after stop row %q", sc.table, sc.scan.StartRow, sc.scan.StopRow)
		return false
	}
	for len(sc.buf) == 0 {
		if sc.done || sc.err != nil {
			return false
		}
		if err := sc.fetch(ctx); err != nil {
			sc.err = fmt.Errorf("scan %s from %q: %w", sc.table, sc.nextStart, err)
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			sc.Close(cctx)
			cancel()
			return false
		}
	}
	sc.cur = sc.buf[0]
	sc.buf[0] = Result{}
	sc.buf = sc.buf[1:]
	return true
}

// Result returns the current Result.
func (sc *Scanner) Result() Result { return sc.cur }

// Err returns the error that stopped the scan, if any.
func (sc *Scanner) Err() error { return sc.err }

// Close releases the server-side scanner; later Next calls return false.
func (sc *Scanner) Close(ctx context.Context) error {
	sc.done = true
	sc.buf = nil
	if sc.rs != nil {
		sc.rs.close(ctx)
		sc.rs = nil
	}
	return nil
}

// fetch gets the next batch into buf, moving to the next region as needed.
func (sc *Scanner) fetch(ctx context.Context) error {
	var region *Region
	return sc.c.retryLoop(ctx, "scan "+sc.table, func(int) error {
		region = nil
		if sc.rs == nil {
			r, err := sc.c.locate(ctx, sc.table, sc.nextStart)
			if err != nil {
				return err
			}
			p := sc.scan.pb()
			p.StartRow = sc.nextStart
			if !sc.inclStart {
				p.IncludeStartRow = proto.Bool(false)
			}
			sc.rs = &regionScan{c: sc.c, region: r, scan: p, rows: sc.scan.caching()}
		}
		rs := sc.rs
		region = rs.region
		results, done, err := rs.next(ctx)
		if err != nil {
			// The server-side scanner is lost or unusable: reopen after
			// the last row returned.
			sc.rs = nil
			if rs.open {
				rs.close(ctx)
			}
			if sc.lastRow != nil {
				if sc.scan.BatchSize > 0 {
					// The row may have been cut into batches: read it again
					// and drop the cells already returned.
					sc.nextStart, sc.inclStart, sc.skip = sc.lastRow, true, sc.lastCells
				} else {
					sc.nextStart, sc.inclStart = sc.lastRow, false
				}
			}
			var re *RemoteError
			if errors.As(err, &re) && (re.Kind == KindUnknownScanner || re.Kind == KindOutOfOrderScannerNext ||
				re.Class == "org.apache.hadoop.hbase.exceptions.ScannerResetException") {
				return &retryableError{err}
			}
			return fmt.Errorf("region %s on %s: %w", rs.region, rs.region.Server.Addr(), err)
		}
		for _, res := range results {
			if len(sc.scan.StopRow) > 0 && bytes.Compare(res.Row, sc.scan.StopRow) >= 0 {
				sc.done = true
				break
			}
			if bytes.Equal(res.Row, sc.lastRow) {
				if sc.skip > 0 {
					n := min(sc.skip, len(res.Cells))
					res.Cells, sc.skip = res.Cells[n:], sc.skip-n
					if len(res.Cells) == 0 {
						continue
					}
				}
				sc.lastCells += len(res.Cells)
			} else {
				sc.lastRow, sc.lastCells, sc.skip = res.Row, len(res.Cells), 0
			}
			sc.buf = append(sc.buf, res)
		}
		if sc.done && !done {
			rs.close(ctx)
			sc.rs = nil
			return nil
		}
		if done {
			sc.rs = nil
			end := rs.region.EndKey
			switch {
			case rs.allDone, len(end) == 0, len(sc.scan.StopRow) > 0 && bytes.Compare(end, sc.scan.StopRow) >= 0:
				sc.done = true
			default:
				sc.nextStart, sc.inclStart = end, true
			}
		}
		return nil
	}, func(err error) { sc.c.invalidate(region, err) })
}
