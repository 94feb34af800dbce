package job

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
//
// The bytes are those json.Marshal makes of the wire form (wireSpec), which
// DecodeTaskSpec reads, but written directly into one buffer of the right
// size: a planner encodes a spec per task, 100,000 of them for a table of
// 100,000 regions, and reflection with its intermediate copies was most of
// that cost.
func EncodeTaskSpec(s TaskSpec) ([]byte, error) {
	b := appendTaskSpec(make([]byte, 0, taskSpecSize(s)), s)
	if len(b) > MaxTaskSpec {
		return nil, fmt.Errorf("%w: task %s encodes to %d bytes, more than %d (%d inputs)",
			ErrTaskSpec, s.Task.ID, len(b), MaxTaskSpec, len(s.Inputs))
	}
	return b, nil
}

// appendTaskSpec appends the JSON of wireOf(s) as encoding/json writes it:
// the fields in order, omitempty ones left out when zero, []byte in
// padded standard base64, strings escaped as json.Marshal escapes them.
func appendTaskSpec(b []byte, s TaskSpec) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, taskSpecVersion, 10)
	b = appendJSONString(append(b, `,"id":`...), s.Task.ID)
	b = appendJSONString(append(b, `,"r":`...), s.Task.Region)
	b = appendJSONBytes(b, `,"s":`, s.Task.Rows.Start)
	b = appendJSONBytes(b, `,"e":`, s.Task.Rows.End)
	b = appendJSONInt(b, `,"b":`, s.Task.Bytes)
	if len(s.Inputs) > 0 {
		b = append(b, `,"in":[`...)
		for i, in := range s.Inputs {
			if i > 0 {
				b = append(b, ',')
			}
			f := &in.File
			b = appendJSONString(append(b, `{"r":`...), f.Region)
			b = appendJSONString(append(b, `,"f":`...), f.Family)
			b = appendJSONString(append(b, `,"n":`...), f.Name)
			b = appendJSONInt(b, `,"z":`, f.Size)
			b = appendJSONBytes(b, `,"fr":`, f.FirstRow)
			b = appendJSONBytes(b, `,"lr":`, f.LastRow)
			if f.HasTime {
				b = append(b, `,"ht":true`...)
			}
			b = appendJSONInt(b, `,"t0":`, f.MinTime)
			b = appendJSONInt(b, `,"t1":`, f.MaxTime)
			b = appendJSONString(append(b, `,"p":`...), in.Path)
			b = appendJSONBytes(b, `,"ref":`, in.Reference)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// taskSpecSize is the length appendTaskSpec gives s when its strings need no
// escaping (else a little more).
func taskSpecSize(s TaskSpec) int {
	str := func(v string) int { return len(v) + 2 }
	byt := func(key string, v []byte) int {
		if len(v) == 0 {
			return 0
		}
		return len(key) + base64.StdEncoding.EncodedLen(len(v)) + 2
	}
	num := func(key string, v int64) int {
		if v == 0 {
			return 0
		}
		return len(key) + len(strconv.AppendInt(make([]byte, 0, 20), v, 10))
	}
	n := len(`{"v":1,"id":,"r":}`) + str(s.Task.ID) + str(s.Task.Region) +
		byt(`,"s":`, s.Task.Rows.Start) + byt(`,"e":`, s.Task.Rows.End) + num(`,"b":`, s.Task.Bytes)
	if len(s.Inputs) > 0 {
		n += len(`,"in":[]`) + len(s.Inputs) - 1
	}
	for _, in := range s.Inputs {
		f := &in.File
		n += len(`{"r":,"f":,"n":,"p":}`) + str(f.Region) + str(f.Family) + str(f.Name) + str(in.Path) +
			num(`,"z":`, f.Size) + byt(`,"fr":`, f.FirstRow) + byt(`,"lr":`, f.LastRow) +
			num(`,"t0":`, f.MinTime) + num(`,"t1":`, f.MaxTime) + byt(`,"ref":`, in.Reference)
		if f.HasTime {
			n += len(`,"ht":true`)
		}
	}
	return n
}

// appendJSONString appends v quoted as json.Marshal quotes it. A string of
// printable ASCII without '"', '\\', '<', '>' or '&' (every id, name and
// path a planner makes) is copied as it is; any other goes through
// json.Marshal, which escapes those and control characters, replaces
// invalid UTF-8 and escapes U+2028 and U+2029.
func appendJSONString(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(v)
			if err != nil {
				// A string always encodes; this is not reached.
				panic(fmt.Sprintf("job: encode string %q: %v", v, err))
			}
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, v...)
	return append(b, '"')
}

// appendJSONBytes appends key and v in quoted standard base64, or nothing
// when v is empty (omitempty).
func appendJSONBytes(b []byte, key string, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = append(append(b, key...), '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

// appendJSONInt appends key and v, or nothing when v is 0 (omitempty).
func appendJSONInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), v, 10)
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
