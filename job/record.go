package job

import (
	"encoding/json"
	"errors"
	"fmt"

	"rangecopy/cluster"
)

// ErrRecord marks a job record that this package did not write.
var ErrRecord = errors.New("job: bad job record")

// Record is what a job's registry node holds: the request, the clusters and
// options it runs with, and the snapshot that pins its inputs, so that every
// process serving the job (a master taking over, workers anywhere) reads the
// same files and writes the same way.
type Record struct {
	// Kind is what the job does: KindCopy (records written before kinds
	// existed decode as it) or KindVerify.
	Kind string
	Spec Spec
	// Snapshot names the source snapshot that pins the job's inputs.
	Snapshot string
	// Source and Target say how to reach the clusters, HDFS included.
	Source, Target cluster.Config
	// Options are how the job runs.
	Options RunOptions
	// Verify is what a verification (KindVerify) compares beyond Spec; nil
	// for a copy.
	Verify *Verification
}

// Kinds of job.
const (
	// KindCopy copies a range: its tasks are per-region copy tasks.
	KindCopy = "copy"
	// KindVerify compares a range of two tables (rangecopy verify): its
	// tasks hash one side's batches in one region.
	KindVerify = "verify"
)

// Verification is what a verification job's record holds beyond the copy
// fields it shares (the range, the clusters, Snapshot for the source's
// snapshot, Options.Bandwidth and User): enough for any process to read
// both pinned sides the same way.
type Verification struct {
	// TargetSnapshot names the target's snapshot.
	TargetSnapshot string `json:"targetSnapshot"`
	// Mode is "visible" or "raw".
	Mode string `json:"mode"`
	// NowMs is the time TTLs are applied at (Unix ms), fixed when the job is
	// registered so a resumed run hashes alike.
	NowMs int64 `json:"nowMs"`
	// BatchBytes is the input bytes a batch aimed at.
	BatchBytes int64 `json:"batchBytes,omitempty"`
	// MaxDiffs caps the differences the report lists.
	MaxDiffs int `json:"maxDiffs,omitempty"`
	// Only restricts the comparison to the batches overlapping these
	// ranges (a re-check of repaired ranges).
	Only []KeyRange `json:"only,omitempty"`
	// KeepSnapshots keeps both snapshots when the verification ends.
	KeepSnapshots bool `json:"keepSnapshots,omitempty"`
	// ReadAll hashes every batch from the HFiles, even those whose store
	// files the file checksums show to be the same on both sides.
	ReadAll bool `json:"readAll,omitempty"`
}

// RunOptions are the settings of a job that every process serving it follows:
// the request's Settings, and where and as whom it writes.
type RunOptions struct {
	// Settings are the request's: the job-wide bandwidth (workers share it in
	// proportion to their capacity; with ProtectSource it is the throttle's
	// ceiling), the task size, whether to create the target table and keep
	// the snapshot, the retries before the master pauses the job for an
	// operator, the source's protection and the pin mode.
	Settings
	// WorkRoot is the parent of the job's work folder on the target HDFS.
	WorkRoot string
	// User is the HBase effective user and the HDFS user.
	User string
	// Detached says the job was submitted for the running masters and
	// workers (rangecopy copy --detach); a job run by one rangecopy copy
	// process is served by that process alone.
	Detached bool
	// Relocation is the id of the relocation the job is a window of; empty for a job of
	// its own. Metrics label a relocation's jobs by it.
	Relocation string
}

// DefaultRetries is how often a failed task is tried again by default.
const DefaultRetries = 3

// MaxRetries bounds RunOptions.Retries.
const MaxRetries = 100

type wireCluster struct {
	Name        string   `json:"name"`
	ZKQuorum    []string `json:"zk"`
	ZNodeParent string   `json:"znode"`
	NameNodes   []string `json:"namenodes,omitempty"`
	RootDir     string   `json:"rootdir,omitempty"`
	ZstdCodec   string   `json:"zstdCodec,omitempty"`
}

type wireRecord struct {
	V        int      `json:"v"`
	Kind     string   `json:"kind,omitempty"`
	Table    string   `json:"table"`
	Target   string   `json:"targetTable,omitempty"`
	Start    []byte   `json:"start,omitempty"`
	End      []byte   `json:"end,omitempty"`
	TMin     int64    `json:"tmin,omitempty"`
	TMax     int64    `json:"tmax,omitempty"`
	Families []string `json:"families,omitempty"`
	Snapshot string   `json:"snapshot"`
	// Source and TargetC are wireClusters; the first format wrote a
	// description string, read as no cluster.
	Source  json.RawMessage `json:"source,omitempty"`
	TargetC json.RawMessage `json:"target,omitempty"`

	Bandwidth    float64 `json:"bandwidth,omitempty"`
	CreateTable  bool    `json:"createTable,omitempty"`
	KeepSnapshot bool    `json:"keepSnapshot,omitempty"`
	TaskBytes    int64   `json:"taskBytes,omitempty"`
	WorkRoot     string  `json:"workRoot,omitempty"`
	User         string  `json:"user,omitempty"`
	Retries      int     `json:"retries,omitempty"`
	Detached     bool    `json:"detached,omitempty"`
	Relocation   string  `json:"relocation,omitempty"`
	Protect      string  `json:"protectSource,omitempty"`
	Pin          string  `json:"pin,omitempty"`

	Verify *Verification `json:"verify,omitempty"`
}

const recordVersion = 2

func toWire(c cluster.Config) json.RawMessage {
	if len(c.ZKQuorum) == 0 {
		return nil
	}
	b, _ := json.Marshal(wireCluster{Name: c.Name, ZKQuorum: c.ZKQuorum, ZNodeParent: c.ZNodeParent, NameNodes: c.NameNodes, RootDir: c.RootDir, ZstdCodec: c.ZstdCodec})
	return b
}

func fromWire(what string, b json.RawMessage) (cluster.Config, error) {
	if len(b) == 0 || b[0] == '"' {
		return cluster.Config{}, nil
	}
	var w wireCluster
	if err := json.Unmarshal(b, &w); err != nil {
		return cluster.Config{}, fmt.Errorf("%w: %s cluster: %v", ErrRecord, what, err)
	}
	return cluster.Config{Name: w.Name, ZKQuorum: w.ZKQuorum, ZNodeParent: w.ZNodeParent, NameNodes: w.NameNodes, RootDir: w.RootDir, ZstdCodec: w.ZstdCodec}, nil
}

// EncodeRecord writes a job record (JSON, readable with zkCli).
func EncodeRecord(r Record) ([]byte, error) {
	if err := r.Options.Validate(); err != nil {
		return nil, err
	}
	if err := r.checkKind(); err != nil {
		return nil, err
	}
	kind := r.Kind
	if kind == KindCopy {
		kind = "" // a copy's record reads as before kinds existed
	}
	o := r.Options
	return json.Marshal(wireRecord{V: recordVersion, Kind: kind, Verify: r.Verify, Table: r.Spec.Table, Target: r.Spec.TargetTable,
		Start: r.Spec.Rows.Start, End: r.Spec.Rows.End, TMin: r.Spec.Time.Min, TMax: r.Spec.Time.Max,
		Families: r.Spec.Families, Snapshot: r.Snapshot, Source: toWire(r.Source), TargetC: toWire(r.Target),
		Bandwidth: o.Bandwidth, CreateTable: o.CreateTable, KeepSnapshot: o.KeepSnapshot, TaskBytes: o.TaskBytes,
		WorkRoot: o.WorkRoot, User: o.User, Retries: o.Retries, Detached: o.Detached, Protect: o.ProtectSource.String(),
		Pin: pinWire(o.Pin), Relocation: o.Relocation})
}

// DecodeRecord reads what EncodeRecord wrote; bad bytes are ErrRecord.
func DecodeRecord(b []byte) (Record, error) {
	var w wireRecord
	if err := json.Unmarshal(b, &w); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	if w.V < 1 || w.V > recordVersion || w.Table == "" || w.Snapshot == "" {
		return Record{}, fmt.Errorf("%w: version %d, table %q, snapshot %q", ErrRecord, w.V, w.Table, w.Snapshot)
	}
	kind := w.Kind
	if kind == "" {
		kind = KindCopy
	}
	r := Record{Kind: kind, Verify: w.Verify, Spec: Spec{Table: w.Table, TargetTable: w.Target, Rows: KeyRange{Start: w.Start, End: w.End},
		Time: TimeRange{Min: w.TMin, Max: w.TMax}, Families: w.Families},
		Snapshot: w.Snapshot,
		Options: RunOptions{Settings: Settings{Bandwidth: w.Bandwidth, CreateTable: w.CreateTable, KeepSnapshot: w.KeepSnapshot,
			TaskBytes: w.TaskBytes, Retries: w.Retries}, WorkRoot: w.WorkRoot, User: w.User, Detached: w.Detached,
			Relocation: w.Relocation}}
	var err error
	if r.Options.ProtectSource, err = ParseProtect(w.Protect); err != nil {
		return Record{}, fmt.Errorf("%w: protectSource: %v", ErrRecord, err)
	}
	if w.Pin != "" {
		if r.Options.Pin, err = ParsePinMode(w.Pin); err != nil {
			return Record{}, fmt.Errorf("%w: pin: %v", ErrRecord, err)
		}
	}
	if r.Source, err = fromWire("source", w.Source); err != nil {
		return Record{}, err
	}
	if r.Target, err = fromWire("target", w.TargetC); err != nil {
		return Record{}, err
	}
	if err := r.Options.Validate(); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	if err := r.checkKind(); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	return r, nil
}

// checkKind checks that the record's kind is known and that a verification
// names its target snapshot and mode (and a copy has no verification).
func (r Record) checkKind() error {
	switch r.Kind {
	case KindCopy, "":
		if r.Verify != nil {
			return errors.New("job: a copy record holds a verification")
		}
	case KindVerify:
		if r.Verify == nil || r.Verify.TargetSnapshot == "" {
			return errors.New("job: a verification record names no target snapshot")
		}
		if r.Verify.Mode != "visible" && r.Verify.Mode != "raw" {
			return fmt.Errorf("job: verification mode %q is neither visible nor raw", r.Verify.Mode)
		}
	default:
		return fmt.Errorf("job: unknown job kind %q", r.Kind)
	}
	return nil
}

// IsCopy reports whether the record is of a copy job (the kind of every
// record written before kinds existed).
func (r Record) IsCopy() bool { return r.Kind == KindCopy || r.Kind == "" }

// Validate checks the options' bounds.
func (o RunOptions) Validate() error {
	switch {
	case o.Bandwidth < 0:
		return fmt.Errorf("job: bandwidth %v must not be negative", o.Bandwidth)
	case o.TaskBytes < 0:
		return fmt.Errorf("job: task size %d must not be negative", o.TaskBytes)
	case o.Retries < 0 || o.Retries > MaxRetries:
		return fmt.Errorf("job: retries %d must be in [0, %d]", o.Retries, MaxRetries)
	}
	if _, err := ParsePinMode(string(o.Pin)); err != nil {
		return fmt.Errorf("job: pin %w", err)
	}
	return o.ProtectSource.Validate()
}

// Servable reports why a record cannot be served by a process that was not
// handed the clusters (a detached master or worker): it must name both
// clusters with their HDFS.
func (r Record) Servable() error {
	for _, c := range []struct {
		name string
		c    cluster.Config
	}{{"source", r.Source}, {"target", r.Target}} {
		if len(c.c.ZKQuorum) == 0 {
			return fmt.Errorf("job record names no %s cluster (written by an older rangecopy copy)", c.name)
		}
		if !c.c.HasHDFS() {
			return fmt.Errorf("job record: %s: its HDFS is not known", c.c)
		}
	}
	return nil
}

// RetryLimit is Retries with its default applied.
func (o RunOptions) RetryLimit() int {
	if o.Retries == 0 {
		return DefaultRetries
	}
	return o.Retries
}
