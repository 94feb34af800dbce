package inproc

import (
	"testing"
	"time"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/testenv"
)

// TestCopyProtectSource runs a copy with --protect-source 2x: it learns the
// source's idle p99 first, copies to the end, the target equals the source,
// and the report carries the probes' figures.
func TestCopyProtectSource(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "protect")
	writeRounds(t, env.Source, table, binaryRows(120), 3, time.Now().UnixMilli()-100_000, true)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Bandwidth = 64 << 20
	o.ProtectSource = job.Protect{Factor: 2}
	dropTargetLater(t, env, table)
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v (report %+v)", err, rep)
	}
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	assertFinished(t, env, o, rep)
	if rep.ProtectSource != "2x" || rep.Probes < 8 || rep.ProbeIdleP99Ms <= 0 || rep.ProbeTargetMs < 2*rep.ProbeIdleP99Ms {
		t.Fatalf("report's throttle figures: target %q, %d probes, idle p99 %.2f ms, target p99 %.2f ms",
			rep.ProtectSource, rep.Probes, rep.ProbeIdleP99Ms, rep.ProbeTargetMs)
	}
	if rep.ThrottleRate <= 0 || rep.ThrottleRate > o.Bandwidth || rep.BandwidthLimit != rep.ThrottleRate {
		t.Fatalf("throttle rate %.0f B/s, limit %.0f B/s: want within (0, %.0f] and in force", rep.ThrottleRate, rep.BandwidthLimit, o.Bandwidth)
	}
	t.Logf("copied %d cells in %.1f s; probes %d (%d failed), idle p99 %.2f ms, target %.2f ms, last p99 %.2f ms, rate %.1f MiB/s, %d cuts",
		n, rep.Seconds(), rep.Probes, rep.ProbeErrors, rep.ProbeIdleP99Ms, rep.ProbeTargetMs, rep.ProbeP99Ms, rep.ThrottleRate/(1<<20), rep.ThrottleDecreases)
}
