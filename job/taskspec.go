package job

import (
	"encoding/json"
	"errors"
	"fmt"
)

// MaxTaskSpec bounds an encoded task spec, the size of registry.MaxSpec: a
// task's spec is stored in one ZooKeeper node.
const MaxTaskSpec = 256 << 10

// taskSpecVersion is the version of the encoding written by EncodeTaskSpec.
const taskSpecVersion = 1

// ErrTaskSpec marks bytes that are not a task spec EncodeTaskSpec wrote, or a
// spec too large to store.
var ErrTaskSpec = errors.New("job: bad task spec")

// TaskSpec is what a worker needs to run a task, as stored in the task's node:
// the task (id, source region, key range, estimated bytes), and each input
// file with where its bytes are. Index entries of the files are not kept:
// they serve planning only.
type TaskSpec struct {
	Task   Task
	Inputs []TaskInput
}

// TaskInput is one input file of a task: its facts, the resolved path of
// its bytes on the source, and, for a split reference, the reference's
// serialized content (hfile.Reference.Marshal) selecting a half of Path.
type TaskInput struct {
	File      StoreFile
	Path      string
	Reference []byte
}

// wire forms: short names keep a spec compact; []byte fields are base64.
type wireSpec struct {
	V      int         `json:"v"`
	ID     string      `json:"id"`
	Region string      `json:"r"`
	Start  []byte      `json:"s,omitempty"`
	End    []byte      `json:"e,omitempty"`
	Bytes  int64       `json:"b,omitempty"`
	Inputs []wireInput `json:"in,omitempty"`
}

type wireInput struct {
	Region  string `json:"r"`
	Family  string `json:"f"`
	Name    string `json:"n"`
	Size    int64  `json:"z,omitempty"`
	First   []byte `json:"fr,omitempty"`
	Last    []byte `json:"lr,omitempty"`
	HasTime bool   `json:"ht,omitempty"`
	MinTime int64  `json:"t0,omitempty"`
	MaxTime int64  `json:"t1,omitempty"`
	Path    string `json:"p"`
	Ref     []byte `json:"ref,omitempty"`
}

// EncodeTaskSpec writes a task spec compactly. A spec over MaxTaskSpec bytes
// is an error wrapping ErrTaskSpec that names the task: plan smaller tasks.
func EncodeTaskSpec(s TaskSpec) ([]byte, error) {
	w := wireSpec{V: taskSpecVersion, ID: s.Task.ID, Region: s.Task.Region,
		Start: s.Task.Rows.Start, End: s.Task.Rows.End, Bytes: s.Task.Bytes}
	for _, in := range s.Inputs {
		f := in.File
		w.Inputs = append(w.Inputs, wireInput{Region: f.Region, Family: f.Family, Name: f.Name,
			Size: f.Size, First: f.FirstRow, Last: f.LastRow, HasTime: f.HasTime,
			MinTime: f.MinTime, MaxTime: f.MaxTime, Path: in.Path, Ref: in.Reference})
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", s.Task.ID, err)
	}
	if len(b) > MaxTaskSpec {
		return nil, fmt.Errorf("%w: task %s encodes to %d bytes, more than %d (%d inputs)",
			ErrTaskSpec, s.Task.ID, len(b), MaxTaskSpec, len(s.Inputs))
	}
	return b, nil
}

// DecodeTaskSpec reads what EncodeTaskSpec wrote. It never panics on bad
// input; every problem is an error wrapping ErrTaskSpec. The Task's Files
// are the inputs' files, in the order stored.
func DecodeTaskSpec(b []byte) (TaskSpec, error) {
	if len(b) > MaxTaskSpec {
		return TaskSpec{}, fmt.Errorf("%w: %d bytes, more than %d", ErrTaskSpec, len(b), MaxTaskSpec)
	}
	var w wireSpec
	if err := json.Unmarshal(b, &w); err != nil {
		return TaskSpec{}, fmt.Errorf("%w: %v", ErrTaskSpec, err)
	}
	if w.V != taskSpecVersion {
		return TaskSpec{}, fmt.Errorf("%w: version %d, want %d", ErrTaskSpec, w.V, taskSpecVersion)
	}
	if w.ID == "" {
		return TaskSpec{}, fmt.Errorf("%w: no task id", ErrTaskSpec)
	}
	s := TaskSpec{Task: Task{ID: w.ID, Region: w.Region, Rows: KeyRange{Start: w.Start, End: w.End}, Bytes: w.Bytes}}
	if s.Task.Rows.Empty() {
		return TaskSpec{}, fmt.Errorf("%w: task %s has an empty row range %s", ErrTaskSpec, w.ID, s.Task.Rows)
	}
	for i, in := range w.Inputs {
		if in.Path == "" || in.Family == "" || in.Name == "" {
			return TaskSpec{}, fmt.Errorf("%w: task %s input %d lacks a path, family or name", ErrTaskSpec, w.ID, i)
		}
		if in.Size < 0 {
			return TaskSpec{}, fmt.Errorf("%w: task %s input %s has negative size %d", ErrTaskSpec, w.ID, in.Name, in.Size)
		}
		f := StoreFile{Region: in.Region, Family: in.Family, Name: in.Name, Size: in.Size,
			FirstRow: in.First, LastRow: in.Last, HasTime: in.HasTime, MinTime: in.MinTime, MaxTime: in.MaxTime}
		s.Inputs = append(s.Inputs, TaskInput{File: f, Path: in.Path, Reference: in.Ref})
		s.Task.Files = append(s.Task.Files, f)
	}
	return s, nil
}
