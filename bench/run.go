package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Method is one way of copying the table that a run measures.
type Method int

// The methods, in the order a run measures them.
const (
	RawHDFS Method = iota + 1
	ExportSnapshot
	CopyTable
	ScanPut
	RangecopyFull
	RangecopyRange
	RangecopyIncremental
	RangecopyBandwidth
	RangecopyProtect
	// RangecopyServerIncremental is RangecopyIncremental submitted to a
	// warm rangecopy server (a process of its own) through its REST API.
	RangecopyServerIncremental
	// ServerAPI is not a copy: it measures GET /api/v1/jobs/{id} under
	// concurrent clients on a server whose catalog holds many jobs (the
	// run's API section, not a row of the table).
	ServerAPI
	// ServerWindow is a relocation's catch-up window run by a warm server: after the full
	// copy, one window with no new data, then one after 1% new rows were written. It adds
	// rows to the source table, so it runs last.
	ServerWindow
	// RangecopyBandwidthQuarter and RangecopyBandwidthThreeQuarters are
	// the whole-table copy under a fixed --bandwidth of a quarter and
	// three quarters of the unthrottled rate: with RangecopyBandwidth
	// (half), they draw the curve of source Get p99 against throughput
	// that the adaptive throttle (RangecopyProtect) is judged against.
	RangecopyBandwidthQuarter
	RangecopyBandwidthThreeQuarters
	// VerifyWhole is rangecopy verify of the whole table against a copy of
	// it made (untimed) before; HashSync is HBase's HashTable of the
	// source then SyncTable --dryrun against the same copy (local
	// MapReduce in the harness JVM). Neither copies: they are the run's
	// verification section.
	VerifyWhole
	HashSync
	// RangecopyManyFiles copies a table of its own (an eighth of the run's
	// size, compaction off, written in 30 flushes over every region's
	// rows, so each store holds 30 files overlapping in rows and time):
	// the memory budget's and the read bound's case.
	RangecopyManyFiles
	// VerifyReadAll is VerifyWhole with --read-all: every batch hashed
	// from both sides' HFiles, none matched by the files' checksums.
	VerifyReadAll
)

// Methods lists every method in run order.
var Methods = []Method{RawHDFS, ExportSnapshot, CopyTable, ScanPut, RangecopyFull, RangecopyRange, RangecopyIncremental, RangecopyBandwidth, RangecopyBandwidthQuarter, RangecopyBandwidthThreeQuarters, RangecopyProtect, RangecopyServerIncremental, ServerAPI, VerifyWhole, VerifyReadAll, HashSync, RangecopyManyFiles, ServerWindow}

var methodNames = map[Method]string{
	RawHDFS:                         "raw-hdfs",
	ExportSnapshot:                  "exportsnapshot",
	CopyTable:                       "copytable",
	ScanPut:                         "scan-put",
	RangecopyFull:                   "rangecopy",
	RangecopyRange:                  "rangecopy-range10",
	RangecopyIncremental:            "rangecopy-newest1",
	RangecopyBandwidth:              "rangecopy-bandwidth",
	RangecopyProtect:                "rangecopy-protect",
	RangecopyServerIncremental:      "server-newest-1pct",
	ServerAPI:                       "server-api",
	ServerWindow:                    "server-window-1pct",
	RangecopyBandwidthQuarter:       "rangecopy-bw25",
	RangecopyBandwidthThreeQuarters: "rangecopy-bw75",
	VerifyWhole:                     "rangecopy-verify",
	VerifyReadAll:                   "rangecopy-verify-readall",
	HashSync:                        "hashtable-synctable",
	RangecopyManyFiles:              "rangecopy-manyfiles",
}

var methodTitles = map[Method]string{
	RawHDFS:                         "raw HDFS copy (limit)",
	ExportSnapshot:                  "ExportSnapshot + clone",
	CopyTable:                       "CopyTable",
	ScanPut:                         "scan+put (our client)",
	RangecopyFull:                   "rangecopy, whole table",
	RangecopyRange:                  "rangecopy, 10% key range",
	RangecopyIncremental:            "rangecopy, newest 1% by time",
	RangecopyBandwidth:              "rangecopy, --bandwidth half",
	RangecopyProtect:                "rangecopy, --protect-source 2x",
	RangecopyServerIncremental:      "newest 1% via the server",
	ServerAPI:                       "server API under load",
	ServerWindow:                    "relocation window, 1% new, warm server",
	RangecopyBandwidthQuarter:       "rangecopy, --bandwidth quarter",
	RangecopyBandwidthThreeQuarters: "rangecopy, --bandwidth three quarters",
	VerifyWhole:                     "rangecopy verify, whole table",
	VerifyReadAll:                   "rangecopy verify --read-all, whole table",
	HashSync:                        "HashTable + SyncTable --dryrun",
	RangecopyManyFiles:              "rangecopy, 30 files a store",
}

// String returns the method's short name, as flags and JSON spell it.
func (m Method) String() string {
	if s, ok := methodNames[m]; ok {
		return s
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Title is the method's name for people.
func (m Method) Title() string {
	if s, ok := methodTitles[m]; ok {
		return s
	}
	return m.String()
}

// ParseMethod reads a method's short name.
func ParseMethod(s string) (Method, error) {
	for m, n := range methodNames {
		if n == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown method %q (known: %v)", s, Methods)
}

// MarshalText writes the short name.
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the short name.
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// WholeTable reports whether the method copies the whole table (and so is
// comparable by wall time with the others that do).
func (m Method) WholeTable() bool {
	return m != RangecopyRange && m != RangecopyIncremental && m != RangecopyServerIncremental && m != ServerAPI &&
		m != ServerWindow && m != RangecopyManyFiles && !m.Verifies()
}

// Verifies reports whether the method compares tables instead of copying.
func (m Method) Verifies() bool { return m == VerifyWhole || m == VerifyReadAll || m == HashSync }

// Rangecopy reports whether the method is one of rangecopy's.
func (m Method) Rangecopy() bool {
	switch m {
	case RawHDFS, ExportSnapshot, CopyTable, ScanPut, HashSync:
		return false
	}
	return true
}

// BandwidthShare is the share of the unthrottled whole-table rate a fixed
// --bandwidth method runs at; 0 for the others.
func (m Method) BandwidthShare() float64 {
	switch m {
	case RangecopyBandwidthQuarter:
		return 0.25
	case RangecopyBandwidth:
		return 0.5
	case RangecopyBandwidthThreeQuarters:
		return 0.75
	}
	return 0
}

// Result is what one method measured.
type Result struct {
	Method Method `json:"method"`
	// Scope says what was copied, for people ("whole table", a key range).
	Scope string `json:"scope"`
	// Bytes is what the method moved: HFile bytes for the file copiers
	// (rangecopy's bytes read), the table's HFile bytes for the
	// cell-by-cell copiers (what they reproduce).
	Bytes   int64   `json:"bytes"`
	Seconds float64 `json:"seconds"`
	// WorkerPeakRSS is the peak resident set of the copying process, when
	// it is a process of its own (0 when the copy ran in the harness JVM).
	WorkerPeakRSS int64 `json:"workerPeakRssBytes"`
	// WorkerCPUSeconds is that process's user and system CPU time.
	WorkerCPUSeconds float64 `json:"workerCpuSeconds"`
	// HarnessPeakRSS is the harness JVMs' (both clusters' and any tool
	// run in them) largest summed resident set sampled during the copy.
	HarnessPeakRSS int64 `json:"harnessPeakRssBytes"`
	// SourceRSCPUSeconds is CPU time of the source region servers' threads
	// during the copy (testenv Cluster.CPU); HarnessCPUSeconds that of the
	// whole harness JVMs.
	SourceRSCPUSeconds float64 `json:"sourceRsCpuSeconds"`
	HarnessCPUSeconds  float64 `json:"harnessCpuSeconds"`
	// TargetRSCPUSeconds is the same of the target's region servers.
	TargetRSCPUSeconds float64 `json:"targetRsCpuSeconds"`
	// Latency is the steady Get workload on the source during the copy.
	Latency Latency `json:"latency"`
	// FilesTotal, FilesPruned: the snapshot's input files in the copy's
	// row range, and those left unread by time range (rangecopy only;
	// -1 when not applicable).
	FilesTotal  int `json:"filesTotal"`
	FilesPruned int `json:"filesPruned"`
	// InputBytes is the plan's estimate of the input in range (rangecopy's
	// report), 0 for the others: Bytes over it is the read amplification.
	InputBytes int64 `json:"inputBytes,omitempty"`
	// CopySeconds is the copy job's own time as rangecopy reports it
	// (snapshot to final load; without process start), 0 for the others.
	CopySeconds float64 `json:"copySeconds,omitempty"`
	// BandwidthLimit is the --bandwidth given, bytes/s (0: none).
	BandwidthLimit float64 `json:"bandwidthLimit,omitempty"`
	// Verified says how many sampled rows were compared between source and
	// target after the copy, all equal (0 when the copy failed).
	Verified int `json:"verified"`
	// Error is why the method failed; its figures are then partial.
	Error string `json:"error,omitempty"`
	// Note carries details worth reading (tool settings, counters).
	Note string `json:"note,omitempty"`
}

// MBps is the method's rate in MB/s (10^6 bytes).
func (r Result) MBps() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Bytes) / 1e6 / r.Seconds
}

// Machine describes where a run ran.
type Machine struct {
	CPUs     int     `json:"cpus"`
	CPUModel string  `json:"cpuModel"`
	MemoryGB float64 `json:"memoryGiB"`
	Kernel   string  `json:"kernel"`
	// LoadBefore and LoadAfter are /proc/loadavg at the start and end of
	// the run: the machine is shared.
	LoadBefore string `json:"loadBefore"`
	LoadAfter  string `json:"loadAfter"`
}

// Versions are the versions of everything measured.
type Versions struct {
	Go        string `json:"go"`
	Java      string `json:"java"`
	HBase     string `json:"hbase"`
	Hadoop    string `json:"hadoop"`
	Rangecopy string `json:"rangecopy"`
}

// Dataset describes the source table a run copies.
type Dataset struct {
	Table    string   `json:"table"`
	Rows     int64    `json:"rows"`
	Regions  int      `json:"regions"`
	Families []string `json:"families"`
	// KeyBytes and the value sizes per family describe one row.
	KeyBytes    int `json:"keyBytes"`
	DValueBytes int `json:"dValueBytes"`
	MValueBytes int `json:"mValueBytes"`
	// StartMs and SpanMs: row i's cells have timestamp StartMs + i*SpanMs/Rows.
	StartMs int64 `json:"startMs"`
	SpanMs  int64 `json:"spanMs"`
	// Files and Bytes are the HFiles of a snapshot of the table.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// LoadSeconds is how long writing and flushing took (0 when reused).
	LoadSeconds float64 `json:"loadSeconds"`
}

// Run is the record of one benchmark run: one JSON file per run.
type Run struct {
	Started  time.Time `json:"started"`
	Command  string    `json:"command"`
	Machine  Machine   `json:"machine"`
	Versions Versions  `json:"versions"`
	Data     Dataset   `json:"data"`
	// GetRate is the steady Get workload's rate, Gets/s.
	GetRate float64 `json:"getRate"`
	// Workers is the parallelism every method was given.
	Workers int `json:"workers"`
	// Idle is the Get workload with nothing copying.
	Idle Latency `json:"idle"`
	// IdleSourceRSCPU is the source region servers' CPU seconds per
	// second meanwhile: what serving the Get workload alone costs them.
	IdleSourceRSCPU float64  `json:"idleSourceRsCpuPerSecond"`
	Results         []Result `json:"results"`
	// API is the server API measurement (method server-api), when run.
	API *APIResult `json:"api,omitempty"`
}

// Result returns the result of method m, if the run measured it.
func (r *Run) Result(m Method) (Result, bool) {
	for _, x := range r.Results {
		if x.Method == m {
			return x, true
		}
	}
	return Result{}, false
}

// WriteJSON writes the run as indented JSON.
func (r *Run) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode run: %w", err)
	}
	return nil
}

// ReadRun reads a run written by WriteJSON.
func ReadRun(rd io.Reader) (*Run, error) {
	var r Run
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("decode run: %w", err)
	}
	return &r, nil
}
