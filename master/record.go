// Package master runs a copy job: it plans the job (validates the request,
// makes sure the target table can take it, pins the source table with a
// snapshot, plans tasks and registers them in ZooKeeper), watches the tasks to
// the end while workers run them, and finishes it (results, snapshot release,
// work folder cleanup, report).
//
// Today the master runs embedded with its workers in one process (the
// rangecopy copy command), but everything between them goes through the
// registry in ZooKeeper: a later change only has to split the processes.
package master

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rangecopy/cluster"
	"rangecopy/job"
)

// ErrRecord marks a job record that this package did not write.
var ErrRecord = errors.New("master: bad job record")

// Record is what the master stores in a job's node: the request, and the
// snapshot that pins its inputs, so that a resumed job reads the same files.
type Record struct {
	Spec     job.Spec
	Snapshot string
	// Source and Target describe the clusters, for messages and checks.
	Source, Target string
}

type wireRecord struct {
	V        int      `json:"v"`
	Table    string   `json:"table"`
	Target   string   `json:"targetTable,omitempty"`
	Start    []byte   `json:"start,omitempty"`
	End      []byte   `json:"end,omitempty"`
	TMin     int64    `json:"tmin,omitempty"`
	TMax     int64    `json:"tmax,omitempty"`
	Families []string `json:"families,omitempty"`
	Snapshot string   `json:"snapshot"`
	Source   string   `json:"source,omitempty"`
	TargetC  string   `json:"target,omitempty"`
}

// EncodeRecord writes a job record.
func EncodeRecord(r Record) ([]byte, error) {
	return json.Marshal(wireRecord{V: 1, Table: r.Spec.Table, Target: r.Spec.TargetTable,
		Start: r.Spec.Rows.Start, End: r.Spec.Rows.End, TMin: r.Spec.Time.Min, TMax: r.Spec.Time.Max,
		Families: r.Spec.Families, Snapshot: r.Snapshot, Source: r.Source, TargetC: r.Target})
}

// DecodeRecord reads what EncodeRecord wrote; bad bytes are ErrRecord.
func DecodeRecord(b []byte) (Record, error) {
	var w wireRecord
	if err := json.Unmarshal(b, &w); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	if w.V != 1 || w.Table == "" || w.Snapshot == "" {
		return Record{}, fmt.Errorf("%w: version %d, table %q, snapshot %q", ErrRecord, w.V, w.Table, w.Snapshot)
	}
	return Record{Spec: job.Spec{Table: w.Table, TargetTable: w.Target, Rows: job.KeyRange{Start: w.Start, End: w.End},
		Time: job.TimeRange{Min: w.TMin, Max: w.TMax}, Families: w.Families},
		Snapshot: w.Snapshot, Source: w.Source, Target: w.TargetC}, nil
}

// clusterID names a cluster by its ZooKeeper quorum (sorted) and znode parent.
func clusterID(c cluster.Config) string {
	q := slices.Clone(c.ZKQuorum)
	slices.Sort(q)
	return strings.Join(q, ",") + c.ZNodeParent
}

// JobID derives a job's id from what it copies: the source cluster and
// table, the target cluster and table, the row and time ranges and the
// families. Running the same copy again yields the same id, so an
// unfinished job is found and resumed. The id is usable as a registry id
// and in a snapshot name.
func JobID(source, target cluster.Config, s job.Spec) string {
	h := sha256.New()
	fams := slices.Clone(s.Families)
	slices.Sort(fams)
	t := s.Times()
	fmt.Fprintf(h, "rangecopy copy v1\x00%s\x00%s\x00%s\x00%s\x00%x\x00%x\x00%d\x00%d\x00%s",
		clusterID(source), s.Table, clusterID(target), s.Target(), s.Rows.Start, s.Rows.End, t.Min, t.Max,
		strings.Join(fams, ","))
	name := strings.NewReplacer(":", ".").Replace(s.Table)
	if len(name) > 100 {
		name = name[:100]
	}
	return "copy-" + name + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// SnapshotName is the prefix of the names of the snapshots that pin a job's
// inputs: each run of the job adds its start time in milliseconds.
func SnapshotName(jobID string) string {
	return "rangecopy-" + strings.NewReplacer(":", "_").Replace(jobID)
}
