package bench

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"rangecopy/job"
	"rangecopy/snapshot"
)

// The scale benchmark (bench/cmd/scale, `make bench-scale`) plans and
// registers a synthetic table of many regions in the test environment's real
// ZooKeeper. This file holds its pure parts: the synthetic pinned table and
// the rendering of the figures.

// SyntheticFamilies are the column families of the synthetic table.
var SyntheticFamilies = []string{"a", "b"}

// SyntheticTable is a pinned table of regions regions, each with
// filesPerRegion store files spread over SyntheticFamilies, as snapshot.Read
// would return it for a snapshot of such a table: regions covering the key
// space in order, each file with its size, first and last rows, TIMERANGE, a
// sample of its block index, and a resolved path under rootDir. No data
// exists: the figures a planner needs come from the manifest and trailers,
// and these are made up to look like a table of 20 MiB files.
func SyntheticTable(table, rootDir string, regions, filesPerRegion int) *snapshot.Pinned {
	pd := &snapshot.Pinned{
		Regions: make([]job.Region, regions),
		Files:   make([]job.StoreFile, 0, regions*filesPerRegion),
		Inputs:  make(map[snapshot.FileKey]snapshot.Input, regions*filesPerRegion),
	}
	row := func(i int) []byte { return []byte(fmt.Sprintf("user%010d", i*1000)) }
	for i := range pd.Regions {
		r := job.Region{EncodedName: hexName("region", i)}
		if i > 0 {
			r.Rows.Start = row(i)
		}
		if i < regions-1 {
			r.Rows.End = row(i + 1)
		}
		pd.Regions[i] = r
		first, last := row(i), []byte(fmt.Sprintf("user%010d", i*1000+999))
		for k := 0; k < filesPerRegion; k++ {
			fam := SyntheticFamilies[k%len(SyntheticFamilies)]
			f := job.StoreFile{
				Region: r.EncodedName, Family: fam, Name: hexName("file", i*filesPerRegion+k),
				Size: 20 << 20, FirstRow: first, LastRow: last,
				HasTime: true, MinTime: 1_700_000_000_000 + int64(k), MaxTime: 1_800_000_000_000 + int64(k),
			}
			// A sample of the block index: four entries.
			for e := 0; e < 4; e++ {
				f.Index = append(f.Index, job.IndexEntry{
					Row:    []byte(fmt.Sprintf("user%010d", i*1000+e*250)),
					Offset: int64(e) * (5 << 20),
				})
			}
			pd.Files = append(pd.Files, f)
			pd.Inputs[snapshot.FileKey{Region: f.Region, Family: f.Family, Name: f.Name}] = snapshot.Input{
				Path: rootDir + "/data/default/" + table + "/" + f.Region + "/" + fam + "/" + f.Name,
				Size: f.Size,
			}
		}
	}
	return pd
}

// hexName is a 32-hex-digit name, like a region's encoded name or an HFile's
// name, derived from kind and i.
func hexName(kind string, i int) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(i))
	h1 := fnv.New64a()
	h1.Write([]byte(kind))
	h1.Write(b[:])
	h2 := fnv.New64()
	h2.Write(b[:])
	h2.Write([]byte(kind))
	return fmt.Sprintf("%016x%016x", h1.Sum64(), h2.Sum64())
}

// ScaleResult holds the figures of one scale run.
type ScaleResult struct {
	Time         time.Time `json:"time"`
	Command      string    `json:"command"`
	Regions      int       `json:"regions"`
	Files        int       `json:"files"`
	Tasks        int       `json:"tasks"`
	SpecBytes    int64     `json:"specBytes"`    // all task specs together
	GenerateSec  float64   `json:"generateSec"`  // the synthetic table
	PlanSec      float64   `json:"planSec"`      // job.Make and the task specs
	RegisterSec  float64   `json:"registerSec"`  // AddTasks, claim order, totals, running
	ReAddSec     float64   `json:"reAddSec"`     // AddTasks of the same tasks again
	PlanHeapMiB  float64   `json:"planHeapMiB"`  // live heap after planning
	Nodes        int       `json:"nodes"`        // under the job
	LargestNode  int       `json:"largestNode"`  // bytes of data
	LargestWhat  string    `json:"largestWhat"`  // which node
	LargestList  int       `json:"largestList"`  // bytes of the largest children listing
	StatusSec    []float64 `json:"statusSec"`    // rangecopy job status runs
	LeadSec      float64   `json:"leadSec"`      // first leader: start to leading
	FirstLookSec float64   `json:"firstLookSec"` // first leader: leading to its first report
	LeaderRSSMiB float64   `json:"leaderRssMiB"` // first leader's peak RSS after its looks
	LeaderHeap   float64   `json:"leaderHeapMiB"`
	SessionSec   float64   `json:"sessionSec"`    // session timeout of the masters
	FailoverSec  float64   `json:"failoverSec"`   // kill -9 of the leader to the standby leading
	ResumeSec    float64   `json:"resumeSec"`     // kill -9 to the standby's first report
	Workers      int       `json:"workers"`       // simulated workers
	Sessions     int       `json:"sessions"`      // their ZooKeeper sessions
	ClaimSec     float64   `json:"claimSec"`      // how long they claimed
	Claims       int       `json:"claims"`        // tasks claimed, checkpointed and done
	ClaimP50ms   float64   `json:"claimP50ms"`    // ClaimAny latency
	ClaimP99ms   float64   `json:"claimP99ms"`    //
	LeaderRSS2   float64   `json:"leaderRss2MiB"` // standby-turned-leader's peak RSS during the claims
	NearTasks    int       `json:"nearTasks"`     // tasks of the near-empty job
	NearFirstMs  float64   `json:"nearFirstMs"`   // mean ClaimAny of its first 100 claims
	NearLastMs   float64   `json:"nearLastMs"`    // mean ClaimAny of its last 100 claims
	NearEmptyMs  float64   `json:"nearEmptyMs"`   // ClaimAny on it once empty (not found)
	Cleanup      float64   `json:"cleanupSec"`
}

// ScaleAims are the aims of issue 17 item 5.
const (
	AimPlanRegisterSec = 60
	AimNodeBytes       = 256 << 10
	AimFailoverTimeout = 2 // session timeouts
	AimStatusSec       = 2
)

// Markdown renders the figures as a table with the aims.
func (r ScaleResult) Markdown() string {
	var b strings.Builder
	ok := func(met bool) string {
		if met {
			return "met"
		}
		return "**not met**"
	}
	maxStatus := 0.0
	for _, s := range r.StatusSec {
		maxStatus = max(maxStatus, s)
	}
	fmt.Fprintf(&b, "%d regions, %d store files, %d tasks (%.0f MiB of task specs); `%s`, %s\n\n",
		r.Regions, r.Files, r.Tasks, float64(r.SpecBytes)/(1<<20), r.Command, r.Time.UTC().Format(time.RFC3339))
	b.WriteString("| what | figure | aim |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| plan (job.Make + task specs) | %.1f s (live heap after it %.0f MiB) | |\n", r.PlanSec, r.PlanHeapMiB)
	fmt.Fprintf(&b, "| register (AddTasks, order, totals) | %.1f s | |\n", r.RegisterSec)
	fmt.Fprintf(&b, "| plan + register | %.1f s | < %d s: %s |\n", r.PlanSec+r.RegisterSec, AimPlanRegisterSec, ok(r.PlanSec+r.RegisterSec < AimPlanRegisterSec))
	fmt.Fprintf(&b, "| re-add all tasks (a re-plan) | %.1f s | |\n", r.ReAddSec)
	fmt.Fprintf(&b, "| nodes under the job | %d | |\n", r.Nodes)
	fmt.Fprintf(&b, "| largest node | %d bytes (%s) | < 256 KiB: %s |\n", r.LargestNode, r.LargestWhat, ok(r.LargestNode < AimNodeBytes))
	fmt.Fprintf(&b, "| largest children listing | %d bytes | (1 MB packet) |\n", r.LargestList)
	fmt.Fprintf(&b, "| `rangecopy job status` | %s s | < %d s: %s |\n", joinSec(r.StatusSec), AimStatusSec, ok(maxStatus < AimStatusSec))
	fmt.Fprintf(&b, "| leader: campaign to leading; to its first report | %.2f s; %.2f s | |\n", r.LeadSec, r.FirstLookSec)
	fmt.Fprintf(&b, "| leader's memory (peak RSS; heap in use) | %.0f MiB; %.0f MiB | |\n", r.LeaderRSSMiB, r.LeaderHeap)
	fmt.Fprintf(&b, "| failover: kill -9 to the standby leading (session timeout %.0f s) | %.1f s | < %.0f s: %s |\n",
		r.SessionSec, r.FailoverSec, AimFailoverTimeout*r.SessionSec, ok(r.FailoverSec < AimFailoverTimeout*r.SessionSec))
	fmt.Fprintf(&b, "| failover: kill -9 to the new leader's first report | %.1f s | < %.0f s: %s |\n",
		r.ResumeSec, AimFailoverTimeout*r.SessionSec, ok(r.ResumeSec < AimFailoverTimeout*r.SessionSec))
	fmt.Fprintf(&b, "| %d simulated workers (%d sessions): claim, checkpoint, done | %d in %.0f s: %.0f claims/s; ClaimAny p50 %.1f ms, p99 %.1f ms | |\n",
		r.Workers, r.Sessions, r.Claims, r.ClaimSec, float64(r.Claims)/max(r.ClaimSec, 1e-9), r.ClaimP50ms, r.ClaimP99ms)
	fmt.Fprintf(&b, "| leader's peak RSS while they claim | %.0f MiB | |\n", r.LeaderRSS2)
	fmt.Fprintf(&b, "| near-empty job of %d tasks, one claimer: ClaimAny first 100, last 100, once empty | %.2f ms, %.2f ms, %.1f ms | |\n",
		r.NearTasks, r.NearFirstMs, r.NearLastMs, r.NearEmptyMs)
	fmt.Fprintf(&b, "| delete the job | %.1f s | |\n", r.Cleanup)
	return b.String()
}

func joinSec(s []float64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprintf("%.2f", v)
	}
	return strings.Join(parts, ", ")
}
