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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"rangecopy/cluster"
	"rangecopy/job"
)

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

// SnapshotStamp returns the time a snapshot named for job jobID (SnapshotName,
// then "-<Unix ms>" and maybe PinName's "-r<attempt>") was named: when the job
// was registered, before the snapshot was taken, so every cell written before
// it is in the snapshot. Pure.
func SnapshotStamp(jobID, name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, SnapshotName(jobID)+"-")
	if !ok {
		return time.Time{}, false
	}
	if i := strings.Index(rest, "-r"); i >= 0 {
		rest = rest[:i]
	}
	ms, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || ms <= 0 {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}
