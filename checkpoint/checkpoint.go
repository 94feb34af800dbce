// Package checkpoint holds the durable progress of a task and the rules for
// resuming from it.
//
// A task copies the rows [Start, End) of one source region. Its worker writes
// output files per column family in row order, rolled only between rows, and
// bulk loads them one after the other. After each load the family's mark
// advances: every cell of that family in a row below the mark is loaded on the
// target. A resumed task reads each family from its mark on. Loading a file a
// second time after a crash between the load and the checkpoint is harmless:
// it adds the same cells again, and HBase keeps one of identical cells.
//
// Nothing here does I/O: the coordinator stores Encode's bytes (in ZooKeeper)
// and hands Decode's result back.
package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// MaxEncoded bounds an encoded checkpoint: well under ZooKeeper's default 1 MB
// node limit, with room for the task's other nodes.
const MaxEncoded = 64 << 10

// ErrFormat marks bytes that are not a checkpoint this package wrote.
var ErrFormat = errors.New("checkpoint: bad format")

// Checkpoint is the progress of one task.
type Checkpoint struct {
	// Task is the task's id; a checkpoint of another task is refused.
	Task string `json:"task"`
	// Families maps a family to its progress. A family not listed has
	// loaded nothing.
	Families map[string]Family `json:"families,omitempty"`
	// Files, Cells and Bytes count what was loaded (output files, cells,
	// bytes written) across families, for reports.
	Files int64 `json:"files,omitempty"`
	Cells int64 `json:"cells,omitempty"`
	Bytes int64 `json:"bytes,omitempty"`
}

// Family is the progress of one column family within a task.
type Family struct {
	// Mark is the row below which every cell of the family is loaded. Nil
	// means nothing is loaded yet.
	Mark []byte `json:"mark,omitempty"`
	// Done says the family's whole range is loaded.
	Done bool `json:"done,omitempty"`
}

// New returns the checkpoint of a task that has loaded nothing.
func New(task string) Checkpoint {
	return Checkpoint{Task: task}
}

// Loaded is what one bulk load added: a family's cells in rows below Mark
// (all of them, up to the task's end when Last is set) and the counters.
type Loaded struct {
	Family string
	// Mark is the first row not covered by this and earlier loads of the
	// family: the first row of the next output file.
	Mark []byte
	// Last says the load finished the family: there is no next file.
	Last                bool
	Files, Cells, Bytes int64
}

// Advance returns the checkpoint after a load. The mark of a family only
// moves forward: a load that would move it back, or load past the task's end
// (end empty: the end of the table), or touch a finished family, is an error,
// and the checkpoint is unchanged.
func (c Checkpoint) Advance(end []byte, l Loaded) (Checkpoint, error) {
	f := c.Families[l.Family]
	if f.Done {
		return c, fmt.Errorf("task %s: family %s is already done; a further load is a bug", c.Task, l.Family)
	}
	if !l.Last {
		if len(l.Mark) == 0 {
			return c, fmt.Errorf("task %s: family %s: a load that is not the last needs a mark", c.Task, l.Family)
		}
		if f.Mark != nil && bytes.Compare(l.Mark, f.Mark) < 0 {
			return c, fmt.Errorf("task %s: family %s: mark %q would move back from %q", c.Task, l.Family, l.Mark, f.Mark)
		}
		if len(end) > 0 && bytes.Compare(l.Mark, end) > 0 {
			return c, fmt.Errorf("task %s: family %s: mark %q is past the task's end %q", c.Task, l.Family, l.Mark, end)
		}
	}
	out := c.clone()
	if l.Last {
		out.Families[l.Family] = Family{Mark: nil, Done: true}
	} else {
		out.Families[l.Family] = Family{Mark: append([]byte(nil), l.Mark...)}
	}
	out.Files += l.Files
	out.Cells += l.Cells
	out.Bytes += l.Bytes
	return out, nil
}

func (c Checkpoint) clone() Checkpoint {
	out := c
	out.Families = make(map[string]Family, len(c.Families)+1)
	for k, v := range c.Families {
		out.Families[k] = v
	}
	return out
}

// ResumeFrom returns the row a family's reading starts at when the task
// (starting at start) runs again, and false when the family is done.
func (c Checkpoint) ResumeFrom(start []byte, family string) ([]byte, bool) {
	f := c.Families[family]
	if f.Done {
		return nil, false
	}
	if f.Mark != nil && bytes.Compare(f.Mark, start) > 0 {
		return f.Mark, true
	}
	return start, true
}

// Done reports whether every one of families is done.
func (c Checkpoint) Done(families []string) bool {
	for _, f := range families {
		if !c.Families[f].Done {
			return false
		}
	}
	return true
}

// Encode writes the checkpoint in a compact, versioned form.
func (c Checkpoint) Encode() ([]byte, error) {
	b, err := json.Marshal(struct {
		V int `json:"v"`
		Checkpoint
	}{1, c})
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint of task %s: %w", c.Task, err)
	}
	if len(b) > MaxEncoded {
		return nil, fmt.Errorf("encode checkpoint of task %s: %d bytes, over the %d limit", c.Task, len(b), MaxEncoded)
	}
	return b, nil
}

// Decode reads a checkpoint that Encode wrote for task. Empty bytes are the
// checkpoint of a task that has loaded nothing.
func Decode(task string, b []byte) (Checkpoint, error) {
	if len(b) == 0 {
		return New(task), nil
	}
	if len(b) > MaxEncoded {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint of task %s is %d bytes, over the %d limit", ErrFormat, task, len(b), MaxEncoded)
	}
	var v struct {
		V int `json:"v"`
		Checkpoint
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint of task %s: %v", ErrFormat, task, err)
	}
	if v.V != 1 {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint of task %s has version %d, this build reads version 1", ErrFormat, task, v.V)
	}
	if v.Task != task {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint names task %q, not %q", ErrFormat, v.Task, task)
	}
	if v.Files < 0 || v.Cells < 0 || v.Bytes < 0 {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint of task %s has a negative counter", ErrFormat, task)
	}
	for name, f := range v.Families {
		if f.Done && f.Mark != nil {
			return Checkpoint{}, fmt.Errorf("%w: checkpoint of task %s: family %s is done and has a mark", ErrFormat, task, name)
		}
	}
	return v.Checkpoint, nil
}

// String summarises the checkpoint for logs, families in order.
func (c Checkpoint) String() string {
	names := make([]string, 0, len(c.Families))
	for n := range c.Families {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	fmt.Fprintf(&b, "task %s:", c.Task)
	for _, n := range names {
		f := c.Families[n]
		switch {
		case f.Done:
			fmt.Fprintf(&b, " %s=done", n)
		default:
			fmt.Fprintf(&b, " %s<%q", n, f.Mark)
		}
	}
	fmt.Fprintf(&b, " (%d files, %d cells, %d bytes)", c.Files, c.Cells, c.Bytes)
	return b.String()
}
