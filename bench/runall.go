package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options are one run's choices.
type Options struct {
	// Table is the source table's name; Rows its size in rows.
	Table string
	Rows  int64
	// Reuse takes an existing table of that name and size as it is.
	Reuse bool
	// KeepTable leaves the source table in place after the run.
	KeepTable bool
	// Methods are measured in the run order (raw first, the rangecopy
	// runs before the slow tools, so the bandwidth run knows the rate).
	Methods []Method
	// Idle is how long the idle Get baseline runs.
	Idle time.Duration
	// Command is recorded as the exact command of the run.
	Command string
}

// runOrder is the order methods run in: the bandwidth-limited copy needs the
// whole-table rate first.
var runOrder = []Method{RawHDFS, RangecopyFull, RangecopyRange, RangecopyIncremental, RangecopyServerIncremental, RangecopyBandwidthQuarter, RangecopyBandwidth, RangecopyBandwidthThreeQuarters, RangecopyProtect, ServerAPI, ExportSnapshot, CopyTable, ScanPut, VerifyWhole, VerifyReadAll, HashSync, RangecopyManyFiles, ServerWindow}

// RunAll loads the table, measures the idle Get workload, then every method,
// and returns the run, results in Methods order. A method that fails is a
// result with its error; RunAll fails only when there is nothing to measure.
func (e *Env) RunAll(ctx context.Context, o Options) (*Run, error) {
	r := &Run{Started: time.Now().UTC(), Command: o.Command, Machine: Describe(), GetRate: e.GetRate, Workers: e.Workers}
	r.Versions = e.versions(ctx)
	e.Logger.Info("loading the source table", "table", o.Table, "rows", o.Rows)
	t, err := e.LoadTable(ctx, o.Table, o.Rows, o.Reuse)
	if err != nil {
		return nil, err
	}
	defer func() {
		ctx := context.WithoutCancel(ctx)
		if err := e.Release(ctx, t); err != nil {
			e.Logger.Warn("release the raw copy's snapshot", "err", err)
		}
		if !o.KeepTable {
			if err := e.Source.DeleteTable(ctx, o.Table); err != nil {
				e.Logger.Warn("drop the source table", "table", o.Table, "err", err)
			}
		}
	}()
	r.Data = t.Dataset
	e.Logger.Info("table ready", "files", t.Files, "bytes", t.Bytes, "load_seconds", int(t.LoadSeconds))
	e.Logger.Info("idle Get baseline", "seconds", o.Idle.Seconds(), "rate", e.GetRate)
	cpu0, err0 := e.Source.CPU(ctx)
	idleStart := time.Now()
	r.Idle = e.Idle(ctx, t, o.Idle)
	if cpu1, err1 := e.Source.CPU(ctx); err0 == nil && err1 == nil {
		r.IdleSourceRSCPU = float64(cpu1.RegionServerCPUNanos-cpu0.RegionServerCPUNanos) / 1e9 / time.Since(idleStart).Seconds()
	}
	var fullRate float64
	var copyErr error
	for _, m := range runOrder {
		if !slices.Contains(o.Methods, m) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return r, fmt.Errorf("run stopped before %s: %w", m, err)
		}
		if m == ServerAPI {
			api := e.MeasureAPI(ctx, t, APIOptions{})
			r.API = &api
			continue
		}
		if m.Verifies() && e.verifyTarget == "" && copyErr == nil {
			// Both verifiers compare the source with one copy of it,
			// made here, outside any measured span.
			e.verifyTarget, copyErr = e.copyForVerify(ctx, t)
			if e.verifyTarget != "" {
				defer e.dropTarget(context.WithoutCancel(ctx), e.verifyTarget, VerifyWhole, t)
			}
		}
		var manyErr error
		if m == RangecopyManyFiles {
			if e.manyTable, manyErr = e.loadManyFiles(ctx, t); e.manyTable != nil {
				many := e.manyTable
				defer func() {
					ctx := context.WithoutCancel(ctx)
					if err := e.Release(ctx, many); err != nil {
						e.Logger.Warn("release the many-files table's snapshot", "err", err)
					}
					if err := e.Source.DeleteTable(ctx, many.Table); err != nil {
						e.Logger.Warn("drop the many-files table", "table", many.Table, "err", err)
					}
				}()
			}
		}
		var res Result
		switch {
		case manyErr != nil:
			res = Result{Method: m, Scope: "a table of its own, 30 files a store", FilesTotal: -1, FilesPruned: -1, Error: manyErr.Error()}
		case m.Verifies() && copyErr != nil:
			res = Result{Method: m, Scope: "whole table", FilesTotal: -1, FilesPruned: -1, Error: fmt.Sprintf("the copy to verify against failed: %v", copyErr)}
		default:
			res = e.Measure(ctx, t, m, fullRate)
		}
		if m == RangecopyFull && res.Error == "" && res.CopySeconds > 0 {
			fullRate = float64(res.Bytes) / res.CopySeconds
		}
		r.Results = append(r.Results, res)
	}
	slices.SortFunc(r.Results, func(a, b Result) int { return int(a.Method) - int(b.Method) })
	r.Machine.LoadAfter = LoadAverage()
	return r, nil
}

func (e *Env) versions(ctx context.Context) Versions {
	v := Versions{Go: runtime.Version(), HBase: e.HBaseVersion, Hadoop: e.HadoopVersion, Java: "unknown", Rangecopy: "unknown"}
	if out, err := exec.CommandContext(ctx, "java", "-version").CombinedOutput(); err == nil {
		v.Java = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	if p, err := RunProc(ctx, []string{e.Rangecopy, "version"}, nil, nil, nil); err == nil {
		v.Rangecopy = strings.TrimPrefix(strings.TrimSpace(string(p.Stdout)), "rangecopy ")
	}
	return v
}

// ParseSize reads a size such as 2GiB, 512MiB, 16MB or a plain byte count.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || f*mult < 1 {
		return 0, fmt.Errorf("size %q: want a positive number with an optional unit (GiB, MiB, KiB, GB, MB, KB)", s)
	}
	return int64(f * mult), nil
}

// ParseMethods reads a comma-separated list of method names; "all" is every
// method.
func ParseMethods(s string) ([]Method, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(Methods), nil
	}
	var out []Method
	for _, f := range strings.Split(s, ",") {
		m, err := ParseMethod(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	for _, m := range out {
		if m.BandwidthShare() > 0 && !slices.Contains(out, RangecopyFull) {
			return nil, fmt.Errorf("method %s needs %s (it runs at %.0f%% of that rate)", m, RangecopyFull, m.BandwidthShare()*100)
		}
	}
	return out, nil
}

// WriteOutputs writes the run's JSON and chart into dir as <stamp>.json and
// <stamp>.png, and regenerates the table in the markdown document doc
// (skipped when doc is empty). It returns the JSON file's path.
func WriteOutputs(r *Run, dir, doc string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("results folder: %w", err)
	}
	stamp := r.Started.UTC().Format("20060102T150405Z")
	jsonPath := filepath.Join(dir, stamp+".json")
	pngPath := filepath.Join(dir, stamp+".png")
	if err := writeFile(jsonPath, func(f *os.File) error { return r.WriteJSON(f) }); err != nil {
		return "", err
	}
	if err := writeFile(pngPath, func(f *os.File) error { return WriteChart(f, r) }); err != nil {
		return "", err
	}
	curvePath := filepath.Join(dir, stamp+"-throttle.png")
	if err := writeFile(curvePath, func(f *os.File) error { return WriteThrottleChart(f, r) }); errors.Is(err, ErrNoCurve) {
		os.Remove(curvePath)
		curvePath = ""
	} else if err != nil {
		return "", err
	}
	if doc == "" {
		return jsonPath, nil
	}
	relJSON, err1 := filepath.Rel(filepath.Dir(doc), jsonPath)
	relPNG, err2 := filepath.Rel(filepath.Dir(doc), pngPath)
	if err1 != nil || err2 != nil {
		relJSON, relPNG = jsonPath, pngPath
	}
	old, err := os.ReadFile(doc)
	if err != nil && !os.IsNotExist(err) {
		return "", fmt.Errorf("read %s: %w", doc, err)
	}
	gen := Markdown(r, filepath.ToSlash(relJSON), filepath.ToSlash(relPNG)) + fmt.Sprintf("\n![throughput and p99 per method](%s)\n", filepath.ToSlash(relPNG))
	if curvePath != "" {
		if rel, err := filepath.Rel(filepath.Dir(doc), curvePath); err == nil {
			gen += fmt.Sprintf("\n![source Get p99 against copy rate: fixed limits and the adaptive throttle](%s)\n", filepath.ToSlash(rel))
		}
	}
	updated, err := UpdateDoc(string(old), gen)
	if err != nil {
		return "", fmt.Errorf("update %s: %w", doc, err)
	}
	if err := os.WriteFile(doc, []byte(updated), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", doc, err)
	}
	return jsonPath, nil
}

func writeFile(name string, write func(*os.File) error) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	return nil
}
