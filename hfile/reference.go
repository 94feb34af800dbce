package hfile

import (
	"fmt"
	"regexp"
)

// Range says which half of a parent file a split reference covers.
type Range int

// Reference ranges, with FS.proto's values.
const (
	// RangeTop covers keys >= the split key.
	RangeTop Range = 0
	// RangeBottom covers keys < the split key.
	RangeBottom Range = 1
)

// String returns "top" or "bottom".
func (r Range) String() string {
	if r == RangeTop {
		return "top"
	}
	return "bottom"
}

// Reference is the content of a split (or merge) reference file: the half of
// the parent file a daughter region owns.
type Reference struct {
	// SplitKey is a serialized KeyValue key, normally the first key on the
	// split row (FirstOnRow).
	SplitKey []byte
	Range    Range
}

// ParseReference decodes a reference file: "PBUF" + FS.proto Reference
// {required bytes splitkey = 1; required Range range = 2}, parsed to the end
// of the file, or the pre-0.96 Writable form (boolean top, VInt length,
// split key).
func ParseReference(b []byte) (*Reference, error) {
	if len(b) >= 4 && string(b[:4]) == pbMagic {
		ref := &Reference{}
		var haveKey, haveRange bool
		err := pbEach(b[4:], func(f pbField) error {
			switch {
			case f.num == 1 && f.wire == 2:
				ref.SplitKey, haveKey = append([]byte(nil), f.b...), true
			case f.num == 2 && f.wire == 0:
				if f.v > 1 {
					return formatError("reference range %d", f.v)
				}
				ref.Range, haveRange = Range(f.v), true
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reference: %w", err)
		}
		if !haveKey || !haveRange {
			return nil, formatError("reference lacks split key or range")
		}
		return ref, checkSplitKey(ref)
	}
	r := readBuf{b: b}
	top := r.u8()
	n := r.vlong()
	if r.err != nil || n < 0 || n > int64(r.remaining()) {
		return nil, formatError("reference: not a PBUF or Writable reference")
	}
	ref := &Reference{SplitKey: append([]byte(nil), r.bytes(int(n))...), Range: RangeBottom}
	if top != 0 {
		ref.Range = RangeTop
	}
	return ref, checkSplitKey(ref)
}

func checkSplitKey(ref *Reference) error {
	var c Cell
	if err := parseKey(ref.SplitKey, &c); err != nil {
		return fmt.Errorf("reference split key: %w", err)
	}
	return nil
}

// Marshal encodes ref in the PBUF form HBase writes.
func (ref *Reference) Marshal() []byte {
	b := []byte(pbMagic)
	b = pbAppendBytes(b, 1, ref.SplitKey)
	return pbAppendVarint(b, 2, uint64(ref.Range))
}

// NewSplitReference returns the reference for one half of a file split at row.
func NewSplitReference(row []byte, r Range) *Reference {
	return &Reference{SplitKey: KeyBytes(FirstOnRow(row)), Range: r}
}

// hfileNameRE is StoreFileInfo.HFILE_NAME_REGEX.
const hfileNameRE = `[0-9a-f]+(?:(?:_SeqId_[0-9]+_)|(?:_del))?`

var refNameRE = regexp.MustCompile(`^(` + hfileNameRE + `|` + linkNameRE + `)\.(.+)$`)

// ParseReferenceName splits a reference file name "<file>.<parentRegion>"
// into the referred file name (a plain HFile name or an HFileLink name) and
// the encoded name of the parent region.
func ParseReferenceName(name string) (file, parentRegion string, ok bool) {
	m := refNameRE.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// HalfReader is a view of one half of a parent file, as a daughter region
// sees it through a split reference (HalfStoreFileReader).
type HalfReader struct {
	parent *Reader
	ref    Reference
	split  *Cell
}

// NewHalfReader returns the half of parent that ref selects.
func NewHalfReader(parent *Reader, ref *Reference) (*HalfReader, error) {
	split, err := ParseKey(ref.SplitKey)
	if err != nil {
		return nil, parent.wrap(fmt.Errorf("reference split key: %w", err))
	}
	return &HalfReader{parent: parent, ref: *ref, split: split}, nil
}

// Scanner returns a scanner over the half, further bounded by opts.
func (h *HalfReader) Scanner(opts ScanOptions) *Scanner {
	return h.parent.Scanner(h.clip(opts))
}

// Extent is Reader.Extent of a scan of the half.
func (h *HalfReader) Extent(opts ScanOptions) (Extent, error) {
	return h.parent.Extent(h.clip(opts))
}

// clip bounds opts to the half.
func (h *HalfReader) clip(opts ScanOptions) ScanOptions {
	if h.ref.Range == RangeTop {
		if opts.StartKey == nil || CompareKeys(opts.StartKey, h.split) < 0 {
			opts.StartKey = h.split
		}
	} else {
		if opts.StopKey == nil || CompareKeys(opts.StopKey, h.split) > 0 {
			opts.StopKey = h.split
		}
	}
	return opts
}

// FirstKey returns a copy of the first cell key of the half, or nil if the
// half is empty.
func (h *HalfReader) FirstKey() (*Cell, error) {
	s := h.Scanner(ScanOptions{})
	if s.Next() {
		return s.Cell().Clone(), nil
	}
	return nil, s.Err()
}

// LastKey returns the last cell key of the half, or nil if it is empty. For
// a bottom half it scans the data block that holds the split key.
func (h *HalfReader) LastKey() (*Cell, error) {
	last := h.parent.LastKey()
	if last == nil {
		return nil, nil
	}
	if h.ref.Range == RangeTop {
		if CompareKeys(last, h.split) < 0 {
			return nil, nil
		}
		return last, nil
	}
	if CompareKeys(last, h.split) < 0 {
		return last, nil
	}
	// Scan forward from the block that may hold the last key before the
	// split: the block holding the split, or the one before it.
	s := h.parent.Scanner(ScanOptions{StopKey: h.split})
	var found *Cell
	starts, err := h.parent.seekBeforeKeys(&s.br, h.split)
	if err != nil {
		return nil, h.parent.wrap(err)
	}
	for _, k := range starts {
		s.Seek(k)
		for s.Next() {
			found = s.Cell().Clone()
		}
		if s.Err() != nil {
			return nil, s.Err()
		}
		if found != nil {
			return found, nil
		}
	}
	return nil, nil
}
