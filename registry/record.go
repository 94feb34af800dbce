package registry

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Bounds on what the registry stores, well under ZooKeeper's 1 MB packet
// limit (jute.maxbuffer) even for a transaction that carries a few of them.
const (
	// MaxSpec bounds a job's or a task's spec bytes.
	MaxSpec = 256 << 10
	// MaxCheckpoint bounds a checkpoint (checkpoint.MaxEncoded).
	MaxCheckpoint = 64 << 10
	// MaxMessage bounds a job's message and a failed task's error.
	MaxMessage = 4 << 10
	// MaxWorkerInfo bounds a worker's free-form info.
	MaxWorkerInfo = 4 << 10
)

// Every record starts with its kind and a format version.
const (
	recJob    = 'J'
	recClaim  = 'C'
	recResult = 'R'
	recWorker = 'W'
	// recBandwidth is a job's bandwidth override (NodeBandwidth).
	recBandwidth = 'B'
	recFormat    = 1
)

// writeBuf appends the fields of a record.
type writeBuf []byte

// newRecord starts a record of that kind with room for size bytes: its kind
// and format version, which readBuf.header checks.
func newRecord(kind byte, size int) writeBuf {
	return append(make(writeBuf, 0, size), kind, recFormat)
}

func (w *writeBuf) byte(b byte)      { *w = append(*w, b) }
func (w *writeBuf) uvarint(v uint64) { *w = binary.AppendUvarint(*w, v) }
func (w *writeBuf) varint(v int64)   { *w = binary.AppendVarint(*w, v) }
func (w *writeBuf) string(s string)  { w.uvarint(uint64(len(s))); *w = append(*w, s...) }
func (w *writeBuf) rest(b []byte)    { *w = append(*w, b...) }

// readBuf reads them back, with a sticky error.
type readBuf struct {
	b   []byte
	err error
}

func (r *readBuf) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrFormat, what)
	}
}

func (r *readBuf) byte(what string) byte {
	if r.err != nil || len(r.b) < 1 {
		r.fail(what + ": truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *readBuf) uvarint(what string) uint64 { return readVarint(r, what, binary.Uvarint) }
func (r *readBuf) varint(what string) int64   { return readVarint(r, what, binary.Varint) }

// readVarint reads a varint with decode (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](r *readBuf, what string, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.b)
	if n <= 0 {
		r.fail(what + ": bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *readBuf) bytes(what string, max int) []byte {
	n := r.uvarint(what)
	if r.err != nil {
		return nil
	}
	if n > uint64(max) || n > uint64(len(r.b)) {
		r.fail(fmt.Sprintf("%s: length %d out of bounds", what, n))
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *readBuf) string(what string, max int) string {
	b := r.bytes(what, max)
	if r.err == nil && !utf8.Valid(b) {
		r.fail(what + ": not UTF-8")
	}
	return string(b)
}

func (r *readBuf) header(kind byte) {
	if k := r.byte("kind"); r.err == nil && k != kind {
		r.fail(fmt.Sprintf("kind %q, want %q", k, kind))
	}
	if v := r.byte("format"); r.err == nil && v != recFormat {
		r.fail(fmt.Sprintf("format %d, want %d", v, recFormat))
	}
}

func (r *readBuf) end() {
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Sprintf("%d trailing bytes", len(r.b)))
	}
}

// jobRecord is the data of a job node.
type jobRecord struct {
	State   JobState
	Message string
	Spec    []byte
}

func (j jobRecord) encode() []byte {
	w := newRecord(recJob, 8+len(j.Message)+len(j.Spec))
	w.byte(byte(j.State))
	w.string(j.Message)
	w.rest(j.Spec)
	return w
}

func decodeJobRecord(b []byte) (jobRecord, error) {
	r := readBuf{b: b}
	r.header(recJob)
	var j jobRecord
	j.State = JobState(r.byte("state"))
	if r.err == nil && !j.State.Valid() {
		r.fail(fmt.Sprintf("state %d unknown", j.State))
	}
	j.Message = r.string("message", MaxMessage)
	if r.err != nil {
		return jobRecord{}, r.err
	}
	if len(r.b) > MaxSpec {
		return jobRecord{}, fmt.Errorf("%w: spec of %d bytes", ErrFormat, len(r.b))
	}
	j.Spec = r.b
	return j, nil
}

// claimRecord is the data of a claim node.
type claimRecord struct {
	Worker  string
	Session int64
	Epoch   int32
}

func (c claimRecord) encode() []byte {
	w := newRecord(recClaim, 24+len(c.Worker))
	w.string(c.Worker)
	w.varint(c.Session)
	w.varint(int64(c.Epoch))
	return w
}

func decodeClaimRecord(b []byte) (claimRecord, error) {
	r := readBuf{b: b}
	r.header(recClaim)
	var c claimRecord
	c.Worker = r.string("worker", MaxIDLen)
	c.Session = r.varint("session")
	e := r.varint("epoch")
	r.end()
	if r.err == nil && (e < 0 || e > 1<<31-1) {
		r.fail(fmt.Sprintf("epoch %d out of range", e))
	}
	if r.err != nil {
		return claimRecord{}, r.err
	}
	c.Epoch = int32(e)
	return c, nil
}

// Result is how a task ended.
type Result struct {
	// Status is StatusDone or StatusFailed.
	Status Status
	// Worker is the worker that set it.
	Worker string
	// Message is the error of a failed task (at most MaxMessage bytes; longer
	// messages are cut when written).
	Message string
}

func (res Result) encode() []byte {
	w := newRecord(recResult, 8+len(res.Worker)+len(res.Message))
	w.byte(byte(res.Status))
	w.string(res.Worker)
	w.string(res.Message)
	return w
}

func decodeResult(b []byte) (Result, error) {
	r := readBuf{b: b}
	r.header(recResult)
	var res Result
	res.Status = Status(r.byte("status"))
	if r.err == nil && res.Status != StatusDone && res.Status != StatusFailed {
		r.fail(fmt.Sprintf("status %v is not a result", res.Status))
	}
	res.Worker = r.string("worker", MaxIDLen)
	res.Message = r.string("message", MaxMessage)
	r.end()
	if r.err != nil {
		return Result{}, r.err
	}
	return res, nil
}

// truncateMessage makes a message valid UTF-8 (a byte that is not, from a
// binary row key in an error, say, is written \xNN: a record with invalid
// UTF-8 could not be read back) and cuts it to MaxMessage bytes at a rune
// boundary.
func truncateMessage(s string) string {
	if !utf8.ValidString(s) {
		var b strings.Builder
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				fmt.Fprintf(&b, `\x%02X`, s[i])
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
		}
		s = b.String()
	}
	if len(s) <= MaxMessage {
		return s
	}
	const mark = " …(truncated)"
	cut := MaxMessage - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// Worker is a live worker as registered.
type Worker struct {
	// ID names the worker (ValidateID).
	ID string
	// Capacity is how many tasks it runs at once.
	Capacity int
	// Info is free-form (host, version), at most MaxWorkerInfo bytes.
	Info string
}

func (wk Worker) encode() []byte {
	w := newRecord(recWorker, 8+len(wk.Info))
	w.uvarint(uint64(wk.Capacity))
	w.string(wk.Info)
	return w
}

func decodeWorker(id string, b []byte) (Worker, error) {
	r := readBuf{b: b}
	r.header(recWorker)
	c := r.uvarint("capacity")
	info := r.string("info", MaxWorkerInfo)
	r.end()
	if r.err == nil && c > 1<<20 {
		r.fail(fmt.Sprintf("capacity %d out of range", c))
	}
	if r.err != nil {
		return Worker{}, r.err
	}
	return Worker{ID: id, Capacity: int(c), Info: info}, nil
}
