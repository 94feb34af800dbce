package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/registry"
)

// ErrUnit marks unit task bytes (a spec or a checkpoint) that this package
// did not write.
var ErrUnit = errors.New("verify: bad unit record")

// Bounds of one unit task: its spec stays well under registry.MaxSpec, its
// checkpoint (a hash per batch) under registry.MaxCheckpoint.
const (
	// MaxUnitBatches bounds the batches of one task: a longer run of
	// batches in one region is cut into several tasks.
	MaxUnitBatches = 1000
	// maxUnitSpec bounds a unit spec's bytes (the batches' row keys).
	maxUnitSpec = 128 << 10
	// hashBytes is the most one batch hash takes in a checkpoint.
	hashBytes = 2*binary.MaxVarintLen64 + sha256.Size
)

// UnitSpec is one task of a verification job: one side's run of touching
// batches in one region, hashed one after another.
type UnitSpec struct {
	// Side is 0 for the source, 1 for the target.
	Side int
	// Region is the side's region that holds the batches.
	Region job.Region
	// First is the index of the unit's first batch in the job's batches,
	// Total the job's batch count.
	First, Total int
	// Batches are the unit's batches, in key order, each ending where the
	// next starts.
	Batches []job.KeyRange
	// Proven says the batches were matched when the job was planned, by
	// both sides' file checksums: the unit reads nothing and its batches
	// hash as BatchHash{Proven: true}.
	Proven bool
}

const (
	recUnit       = 'U'
	recUnitHashes = 'H'
	// unitFormat is the first format of unit specs and checkpoints;
	// unitFlagsFormat the second, written since file checksums prove
	// batches: a spec with a flags byte after the side, a checkpoint with
	// the bytes read after the hashes.
	unitFormat      = 1
	unitFlagsFormat = 2
	unitFlagProven  = 1
)

// EncodeUnitSpec writes a unit's task spec: the batches as their first
// start and every end.
func EncodeUnitSpec(u UnitSpec) ([]byte, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	var flags byte
	if u.Proven {
		flags |= unitFlagProven
	}
	b := []byte{recUnit, unitFlagsFormat, byte(u.Side), flags}
	b = binary.AppendUvarint(b, uint64(u.First))
	b = binary.AppendUvarint(b, uint64(u.Total))
	b = appendBytes(b, []byte(u.Region.EncodedName))
	b = appendBytes(b, u.Region.Rows.Start)
	b = appendBytes(b, u.Region.Rows.End)
	b = appendBytes(b, u.Batches[0].Start)
	b = binary.AppendUvarint(b, uint64(len(u.Batches)))
	for _, bt := range u.Batches {
		b = appendBytes(b, bt.End)
	}
	if len(b) > registry.MaxSpec {
		return nil, fmt.Errorf("verify: unit spec of %d bytes: larger than %d", len(b), registry.MaxSpec)
	}
	return b, nil
}

func (u UnitSpec) check() error {
	switch {
	case u.Side != 0 && u.Side != 1:
		return fmt.Errorf("%w: side %d", ErrUnit, u.Side)
	case len(u.Batches) == 0 || len(u.Batches) > MaxUnitBatches:
		return fmt.Errorf("%w: %d batches, want 1 to %d", ErrUnit, len(u.Batches), MaxUnitBatches)
	case u.First < 0 || u.Total < u.First+len(u.Batches):
		return fmt.Errorf("%w: batches [%d, %d) of %d", ErrUnit, u.First, u.First+len(u.Batches), u.Total)
	}
	for i := 1; i < len(u.Batches); i++ {
		if !bytes.Equal(u.Batches[i-1].End, u.Batches[i].Start) || len(u.Batches[i].Start) == 0 {
			return fmt.Errorf("%w: batch %d does not start where batch %d ends", ErrUnit, i, i-1)
		}
	}
	for i, bt := range u.Batches {
		if bt.Empty() {
			return fmt.Errorf("%w: batch %d (%s) is empty", ErrUnit, i, bt)
		}
	}
	return nil
}

// DecodeUnitSpec reads what EncodeUnitSpec wrote; bad bytes are ErrUnit.
func DecodeUnitSpec(b []byte) (UnitSpec, error) {
	r := unitReader{b: b}
	format := r.header(recUnit, unitFormat, unitFlagsFormat)
	var u UnitSpec
	u.Side = int(r.byte())
	if format == unitFlagsFormat {
		flags := r.byte()
		if flags&^unitFlagProven != 0 {
			r.fail(fmt.Sprintf("unknown flags %#x", flags))
		}
		u.Proven = flags&unitFlagProven != 0
	}
	u.First = r.count(1 << 30)
	u.Total = r.count(1 << 30)
	u.Region.EncodedName = string(r.bytes())
	u.Region.Rows = job.KeyRange{Start: nonEmpty(r.bytes()), End: nonEmpty(r.bytes())}
	start := nonEmpty(r.bytes())
	n := r.count(MaxUnitBatches)
	for i := 0; i < n && r.err == nil; i++ {
		end := nonEmpty(r.bytes())
		u.Batches = append(u.Batches, job.KeyRange{Start: start, End: end})
		start = end
	}
	r.end()
	if r.err != nil {
		return UnitSpec{}, r.err
	}
	if err := u.check(); err != nil {
		return UnitSpec{}, err
	}
	return u, nil
}

// UnitCheckpoint is a unit task's checkpoint: the hashes of its first
// batches, those hashed so far (all of them once it is done), and the HFile
// bytes its runs read, for the report's total wherever the unit ran.
type UnitCheckpoint struct {
	Hashes    []BatchHash
	BytesRead int64
}

// EncodeUnitCheckpoint writes a unit's checkpoint (format 2: format 1's
// hashes, then the bytes read).
func EncodeUnitCheckpoint(c UnitCheckpoint) []byte {
	b := make([]byte, 0, 3+len(c.Hashes)*hashBytes+binary.MaxVarintLen64)
	b = append(b, recUnitHashes, unitFlagsFormat)
	b = binary.AppendUvarint(b, uint64(len(c.Hashes)))
	for _, h := range c.Hashes {
		b = binary.AppendUvarint(b, uint64(h.Cells))
		b = binary.AppendUvarint(b, uint64(h.Rows))
		b = append(b, h.Sum[:]...)
	}
	return binary.AppendUvarint(b, uint64(max(c.BytesRead, 0)))
}

// DecodeUnitCheckpoint reads what EncodeUnitCheckpoint wrote (and format 1,
// without the bytes read); nil (no checkpoint yet) is no hash; bad bytes
// are ErrUnit.
func DecodeUnitCheckpoint(b []byte) (UnitCheckpoint, error) {
	if len(b) == 0 {
		return UnitCheckpoint{}, nil
	}
	r := unitReader{b: b}
	format := r.header(recUnitHashes, unitFormat, unitFlagsFormat)
	n := r.count(MaxUnitBatches)
	var c UnitCheckpoint
	for i := 0; i < n && r.err == nil; i++ {
		var h BatchHash
		h.Cells = int64(r.count(1 << 62))
		h.Rows = int64(r.count(1 << 62))
		copy(h.Sum[:], r.take(sha256.Size))
		c.Hashes = append(c.Hashes, h)
	}
	if format == unitFlagsFormat {
		c.BytesRead = int64(r.count(1 << 62))
	}
	r.end()
	if r.err != nil {
		return UnitCheckpoint{}, r.err
	}
	return c, nil
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// unitReader reads the fields of a unit record, keeping the first error.
type unitReader struct {
	b   []byte
	err error
}

func (r *unitReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrUnit, what)
	}
}

// header reads a record's kind and format, one of formats, and returns the
// format.
func (r *unitReader) header(kind byte, formats ...byte) byte {
	if len(r.b) < 2 || r.b[0] != kind || !slices.Contains(formats, r.b[1]) {
		r.fail(fmt.Sprintf("not a %q record of format %v", kind, formats))
		return 0
	}
	f := r.b[1]
	r.b = r.b[2:]
	return f
}

func (r *unitReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 1 {
		r.fail("short")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *unitReader) count(max uint64) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > max {
		r.fail("bad count")
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *unitReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.fail("short")
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *unitReader) bytes() []byte {
	return slices.Clone(r.take(r.count(registry.MaxSpec)))
}

func (r *unitReader) end() {
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Sprintf("%d bytes left over", len(r.b)))
	}
}

// unitTasks cuts the units of both sides (in the order hashSides takes them)
// into tasks of at most maxBatches batches and about maxSpec bytes of row
// keys, each named by its side and its place (source-000000, ...). Pure.
func unitTasks(units []unit, batches []job.KeyRange, maxBatches, maxSpec int) ([]string, []UnitSpec) {
	var ids []string
	var specs []UnitSpec
	for _, u := range units {
		for lo := u.lo; lo < u.hi; {
			hi, size := lo, len(u.region.EncodedName)+len(u.region.Rows.Start)+len(u.region.Rows.End)+len(batches[lo].Start)
			for hi < u.hi && hi-lo < maxBatches && (hi == lo || size+len(batches[hi].End) <= maxSpec) {
				size += len(batches[hi].End) + binary.MaxVarintLen32
				hi++
			}
			ids = append(ids, fmt.Sprintf("%s-%06d", sideNames[u.side], len(ids)))
			specs = append(specs, UnitSpec{Side: u.side, Region: u.region, First: lo, Total: len(batches), Batches: batches[lo:hi], Proven: u.proven})
			lo = hi
		}
	}
	return ids, specs
}

var sideNames = [2]string{"source", "target"}

// assemble puts the hashes of every unit of a job into hashes[side][batch]
// and returns the job's batches, as the units name them. Every batch must be
// hashed exactly once per side, by units that agree on the batches. Pure.
func assemble(specs []UnitSpec, done [][]BatchHash) ([]job.KeyRange, [][]BatchHash, error) {
	if len(specs) == 0 {
		return nil, nil, errors.New("verify: the job has no unit")
	}
	total := specs[0].Total
	batches := make([]job.KeyRange, total)
	hashes := [][]BatchHash{make([]BatchHash, total), make([]BatchHash, total)}
	seen := [][]bool{make([]bool, total), make([]bool, total)}
	for i, u := range specs {
		if u.Total != total {
			return nil, nil, fmt.Errorf("verify: unit %d counts %d batches, another %d", i, u.Total, total)
		}
		if u.Proven {
			if len(done[i]) != 0 {
				return nil, nil, fmt.Errorf("verify: unit %d (%s region %s) is proven by checksums, yet holds %d hashes", i, sideNames[u.Side], u.Region.EncodedName, len(done[i]))
			}
		} else if len(done[i]) != len(u.Batches) {
			return nil, nil, fmt.Errorf("verify: unit %d (%s region %s) hashed %d of its %d batches", i, sideNames[u.Side], u.Region.EncodedName, len(done[i]), len(u.Batches))
		}
		for k, b := range u.Batches {
			at := u.First + k
			if seen[u.Side][at] {
				return nil, nil, fmt.Errorf("verify: batch %d hashed twice on the %s", at, sideNames[u.Side])
			}
			if seen[1-u.Side][at] && !(bytes.Equal(batches[at].Start, b.Start) && bytes.Equal(batches[at].End, b.End)) {
				return nil, nil, fmt.Errorf("verify: batch %d is %s on one side, %s on the other", at, batches[at], b)
			}
			seen[u.Side][at] = true
			batches[at] = b
			if u.Proven {
				hashes[u.Side][at] = BatchHash{Proven: true}
			} else {
				hashes[u.Side][at] = done[i][k]
			}
		}
	}
	for s := range seen {
		for at, ok := range seen[s] {
			if !ok {
				return nil, nil, fmt.Errorf("verify: no unit hashes batch %d on the %s", at, sideNames[s])
			}
		}
	}
	return batches, hashes, nil
}

// JobID derives a verification job's id from what it compares: both
// clusters and tables, the row and time ranges, the families, the mode,
// the batch size and the ranges it is restricted to. Verifying the same
// again yields the same id, so an unfinished verification is found and
// resumed. Pure.
func JobID(o Options) string {
	o.defaults()
	h := sha256.New()
	fams := slices.Clone(o.Families)
	slices.Sort(fams)
	fmt.Fprintf(h, "rangecopy verify v1\x00%s\x00%s\x00%s\x00%s\x00%x\x00%x\x00%d\x00%d\x00%s\x00%s\x00%d",
		clusterID(o.Source), o.Table, clusterID(o.Target), o.TargetTable, o.Rows.Start, o.Rows.End, o.Time.Min, o.Time.Max,
		strings.Join(fams, ","), o.Mode, o.BatchBytes)
	for _, r := range o.Only {
		fmt.Fprintf(h, "\x00%x\x00%x", r.Start, r.End)
	}
	if o.ReadAll {
		fmt.Fprint(h, "\x00read all")
	}
	name := strings.NewReplacer(":", ".").Replace(o.Table)
	if len(name) > 90 {
		name = name[:90]
	}
	return "verify-" + name + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// clusterID names a cluster by its ZooKeeper quorum (sorted) and znode
// parent, as a copy's job id does.
func clusterID(c cluster.Config) string {
	q := slices.Clone(c.ZKQuorum)
	slices.Sort(q)
	return strings.Join(q, ",") + c.ZNodeParent
}
