package bench

import "fmt"

// Status says whether an aim was met.
type Status int

// The statuses of an aim.
const (
	NotMeasured Status = iota
	Met
	Missed
)

// String returns the status for people.
func (s Status) String() string {
	switch s {
	case Met:
		return "met"
	case Missed:
		return "missed"
	}
	return "not measured"
}

// Aim is one of issue #7's aims with the figure measured for it.
type Aim struct {
	// Name says what is compared; Want the aim, as people write it.
	Name string
	Want string
	// Value is the measured figure (a ratio), Got its rendering.
	Value  float64
	Got    string
	Status Status
}

// Speedup is how many times faster a finished in than b did: b's wall time
// over a's. Zero when either is missing, failed or took no time.
func Speedup(a, b Result) float64 {
	if a.Error != "" || b.Error != "" || a.Seconds <= 0 || b.Seconds <= 0 {
		return 0
	}
	return b.Seconds / a.Seconds
}

// Aims evaluates the aims on a run.
func Aims(r *Run) []Aim {
	get := func(m Method) (Result, bool) {
		x, ok := r.Result(m)
		return x, ok && x.Error == ""
	}
	var out []Aim
	atLeast := func(name, want string, a, b Method, min float64) {
		aim := Aim{Name: name, Want: want}
		x, okA := get(a)
		y, okB := get(b)
		if okA && okB {
			aim.Value = Speedup(x, y)
			aim.Got = fmt.Sprintf("%.2f×", aim.Value)
			aim.Status = statusOf(aim.Value >= min)
		}
		out = append(out, aim)
	}
	atLeast("rangecopy whole table vs the raw HDFS copy (wall time)", "≥ 0.85×", RangecopyFull, RawHDFS, 0.85)
	atLeast("rangecopy whole table vs ExportSnapshot + clone", "≥ 1.0×", RangecopyFull, ExportSnapshot, 1.0)
	atLeast("rangecopy whole table vs CopyTable", "≥ 10×", RangecopyFull, CopyTable, 10)
	atLeast("rangecopy 10% key range vs ExportSnapshot of the whole table", "≥ 5×", RangecopyRange, ExportSnapshot, 5)
	atLeast("rangecopy newest 1% (incremental) vs rangecopy whole table", "≥ 20×", RangecopyIncremental, RangecopyFull, 20)
	atLeast("newest 1% via a warm server vs rangecopy whole table", "≥ 20×", RangecopyServerIncremental, RangecopyFull, 20)
	atLeast("relocation window, 1% new, warm server vs rangecopy whole table", "≥ 20×", ServerWindow, RangecopyFull, 20)
	win := Aim{Name: "relocation window, 1% new, warm server", Want: "< 2 s"}
	if x, ok := get(ServerWindow); ok && x.Seconds > 0 {
		win.Value = x.Seconds
		win.Got = fmt.Sprintf("%.2f s", x.Seconds)
		win.Status = statusOf(x.Seconds < 2)
	}
	out = append(out, win)

	p99 := Aim{Name: "source Get p99 during rangecopy whole table vs idle", Want: "≤ 1.2×"}
	if x, ok := get(RangecopyFull); ok && r.Idle.P99 > 0 && x.Latency.Count > 0 {
		p99.Value = x.Latency.P99 / r.Idle.P99
		p99.Got = fmt.Sprintf("%.2f× (%.1f ms vs %.1f ms)", p99.Value, x.Latency.P99, r.Idle.P99)
		p99.Status = statusOf(p99.Value <= 1.2)
	}
	out = append(out, p99)

	bw := Aim{Name: "rangecopy --bandwidth: measured rate vs the limit", Want: "within ±10%"}
	if x, ok := get(RangecopyBandwidth); ok && x.BandwidthLimit > 0 && x.Seconds > 0 {
		// The job's own time, when known: the limit governs the copy,
		// not the process start.
		secs := x.Seconds
		if x.CopySeconds > 0 {
			secs = x.CopySeconds
		}
		rate := float64(x.Bytes) / secs
		bw.Value = rate / x.BandwidthLimit
		bw.Got = fmt.Sprintf("%.2f× (%.1f MB/s under a %.1f MB/s limit)", bw.Value, rate/1e6, x.BandwidthLimit/1e6)
		bw.Status = statusOf(bw.Value >= 0.9 && bw.Value <= 1.1)
	}
	out = append(out, bw)

	out = append(out, throttleAims(r)...)
	out = append(out, verifyAims(r)...)
	out = append(out, memoryAims(r)...)

	p99api := Aim{Name: "server GET /jobs/{id} p99, 50 clients, 1,000 jobs", Want: "< 50 ms"}
	rssapi := Aim{Name: "server peak RSS meanwhile (no embedded workers)", Want: "< 256 MiB"}
	if a := r.API; a != nil && a.Error == "" && a.Latency.Count > 0 {
		p99api.Value = a.Latency.P99
		p99api.Got = fmt.Sprintf("%.1f ms (%d clients, %d jobs, %d errors)", a.Latency.P99, a.Clients, a.Jobs, a.Latency.Errors)
		p99api.Status = statusOf(a.Latency.P99 < 50 && a.Latency.Errors == 0)
		rssapi.Value = float64(a.PeakRSS)
		rssapi.Got = humanBytes(a.PeakRSS)
		rssapi.Status = statusOf(a.PeakRSS > 0 && a.PeakRSS < 256<<20)
	}
	out = append(out, p99api, rssapi)
	return out
}

func statusOf(ok bool) Status {
	if ok {
		return Met
	}
	return Missed
}

// CopyRate is a copy's rate in bytes/s over the job's own time when
// rangecopy reported it (the throttle governs the copy, not the process
// start), else over the wall time; 0 when failed or unmeasured.
func CopyRate(x Result) float64 {
	secs := x.Seconds
	if x.CopySeconds > 0 {
		secs = x.CopySeconds
	}
	if x.Error != "" || secs <= 0 {
		return 0
	}
	return float64(x.Bytes) / secs
}

// throttleAims judges the adaptive throttle: the source's Get p99 held
// within twice the idle p99, at no less than 60% of the unthrottled rate.
func throttleAims(r *Run) []Aim {
	p99 := Aim{Name: "--protect-source 2x: source Get p99 vs idle", Want: "≤ 2×"}
	rate := Aim{Name: "--protect-source 2x: rate vs the unthrottled copy", Want: "≥ 60%"}
	x, ok := r.Result(RangecopyProtect)
	if !ok || x.Error != "" {
		return []Aim{p99, rate}
	}
	if r.Idle.P99 > 0 && x.Latency.Count > 0 {
		p99.Value = x.Latency.P99 / r.Idle.P99
		p99.Got = fmt.Sprintf("%.2f× (%.1f ms vs %.1f ms idle)", p99.Value, x.Latency.P99, r.Idle.P99)
		p99.Status = statusOf(p99.Value <= 2)
	}
	if full, ok := r.Result(RangecopyFull); ok && CopyRate(full) > 0 && CopyRate(x) > 0 {
		rate.Value = CopyRate(x) / CopyRate(full)
		rate.Got = fmt.Sprintf("%.0f%% (%.1f of %.1f MB/s)", rate.Value*100, CopyRate(x)/1e6, CopyRate(full)/1e6)
		rate.Status = statusOf(rate.Value >= 0.6)
	}
	return []Aim{p99, rate}
}

// verifyAims judges rangecopy verify against HashTable + SyncTable on the
// same pair of tables: faster, with next to no region-server CPU, within a
// worker's memory budget.
func verifyAims(r *Run) []Aim {
	speed := Aim{Name: "rangecopy verify vs HashTable + SyncTable --dryrun (wall time)", Want: "≥ 3×"}
	cpu := Aim{Name: "region-server CPU (source + target) during verify vs during HashTable + SyncTable", Want: "≤ 5%"}
	mem := Aim{Name: "rangecopy verify peak RSS vs a worker's default memory budget", Want: "< " + humanBytes(BudgetBytes)}
	v, okV := r.Result(VerifyWhole)
	h, okH := r.Result(HashSync)
	okV = okV && v.Error == ""
	okH = okH && h.Error == ""
	if okV && okH {
		speed = thriceAsFast(speed, v, h)
		vc, hc := NetRSCPU(r, v), NetRSCPU(r, h)
		if hc > 0 {
			cpu.Value = vc / hc
			cpu.Got = fmt.Sprintf("%.1f%% (%.2f s vs %.2f s, beyond serving the Get workload)", cpu.Value*100, vc, hc)
			cpu.Status = statusOf(cpu.Value <= 0.05)
		}
	}
	if okV && v.WorkerPeakRSS > 0 {
		mem.Value = float64(v.WorkerPeakRSS)
		mem.Got = humanBytes(v.WorkerPeakRSS)
		mem.Status = statusOf(v.WorkerPeakRSS < BudgetBytes)
	}
	readAll := Aim{Name: "rangecopy verify --read-all (every batch hashed) vs HashTable + SyncTable --dryrun (wall time)", Want: "≥ 3×"}
	if a, ok := r.Result(VerifyReadAll); ok && a.Error == "" && okH {
		readAll = thriceAsFast(readAll, a, h)
	}
	return []Aim{speed, cpu, mem, readAll}
}

// thriceAsFast judges aim a, "≥ 3×" by wall time, of x against base.
func thriceAsFast(a Aim, x, base Result) Aim {
	a.Value = Speedup(x, base)
	a.Got = fmt.Sprintf("%.2f× (%.1f s vs %.1f s)", a.Value, x.Seconds, base.Seconds)
	a.Status = statusOf(a.Value >= 3)
	return a
}

// NetRSCPU is the region-server CPU (source and target) a method cost
// beyond what serving the steady Get workload costs the source anyway (the
// idle rate over the method's time), never below 0.
func NetRSCPU(r *Run, x Result) float64 {
	return max(0, x.SourceRSCPUSeconds-r.IdleSourceRSCPU*x.Seconds) + x.TargetRSCPUSeconds
}

// Amplification is a rangecopy copy's bytes read over the plan's estimate
// of its input; 0 when unknown.
func Amplification(x Result) float64 {
	if x.Error != "" || x.InputBytes <= 0 || x.Bytes <= 0 {
		return 0
	}
	return float64(x.Bytes) / float64(x.InputBytes)
}

// memoryAims judges the memory budget on the many-files table and the read
// bound on every rangecopy copy that reported its plan's input.
func memoryAims(r *Run) []Aim {
	mem := Aim{Name: "rangecopy, 30 files a store: peak RSS vs the default 512 MiB budget", Want: "≤ 1.25× (budget + runtime)"}
	if x, ok := r.Result(RangecopyManyFiles); ok && x.Error == "" && x.WorkerPeakRSS > 0 {
		mem.Value = float64(x.WorkerPeakRSS) / BudgetBytes
		mem.Got = fmt.Sprintf("%.2f× (%s)", mem.Value, humanBytes(x.WorkerPeakRSS))
		mem.Status = statusOf(mem.Value <= 1.25)
	}
	amp := Aim{Name: "read amplification (bytes read / the plan's input), worst rangecopy copy", Want: "≤ 1.05×"}
	worst, of := 0.0, ""
	for _, x := range r.Results {
		if a := Amplification(x); a > worst {
			worst, of = a, x.Method.Title()
		}
	}
	if worst > 0 {
		amp.Value = worst
		amp.Got = fmt.Sprintf("%.3f× (%s)", worst, of)
		amp.Status = statusOf(worst <= 1.05)
	}
	return []Aim{mem, amp}
}
