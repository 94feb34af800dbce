package hbase_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/testenv"
)

const benchValueSize = 100

// benchTable creates a 4-region table on the source cluster for a benchmark.
func benchTable(b *testing.B, prefix string) (*testenv.Cluster, *hbase.Client, string) {
	env := testenv.Get(b)
	cl := env.Source
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := testsupport.Dial(b, cl)
	table := testenv.UniqueName(b, prefix)
	if err := cl.CreateTable(ctx, table, []testenv.Family{{Name: "f"}}, [][]byte{[]byte("r4"), []byte("r8"), []byte("rc")}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cl.DeleteTable(ctx, table)
	})
	return cl, c, table
}

func benchBatch(start, n int) []*hbase.Mutation {
	val := make([]byte, benchValueSize)
	muts := make([]*hbase.Mutation, 0, n)
	for i := start; i < start+n; i++ {
		row := fmt.Appendf(nil, "r%x%07d", i%16, i)
		muts = append(muts, hbase.NewPut(row).Add([]byte("f"), []byte("q"), hbase.LatestTimestamp, val))
	}
	return muts
}

// BenchmarkIntegrationPutBatch measures batched puts (1000 rows of one
// 100-byte cell per Apply) against the source mini cluster.
func BenchmarkIntegrationPutBatch(b *testing.B) {
	_, c, table := benchTable(b, "benchput")
	ctx := context.Background()
	const batch = 1000
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := c.Apply(ctx, table, benchBatch(i*batch, batch)); err != nil {
			b.Fatal(err)
		}
	}
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N*batch)/secs, "cells/s")
	b.ReportMetric(float64(b.N*batch*benchValueSize)/secs/1e6, "valueMB/s")
}

// BenchmarkIntegrationScan measures a full-table scan of 100,000 rows of one
// 100-byte cell across 4 regions.
func BenchmarkIntegrationScan(b *testing.B) {
	_, c, table := benchTable(b, "benchscan")
	ctx := context.Background()
	const rows, batch = 100000, 2000
	for i := 0; i < rows; i += batch {
		if err := c.Apply(ctx, table, benchBatch(i, batch)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	var cells, bytes int
	for i := 0; i < b.N; i++ {
		sc := c.Scan(table, hbase.Scan{Caching: 1000})
		for sc.Next(ctx) {
			for _, cell := range sc.Result().Cells {
				cells++
				bytes += len(cell.Row) + len(cell.Family) + len(cell.Qualifier) + len(cell.Value) + 12
			}
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
	secs := time.Since(start).Seconds()
	if cells != b.N*rows {
		b.Fatalf("scanned %d cells, want %d", cells, b.N*rows)
	}
	b.ReportMetric(float64(cells)/secs, "cells/s")
	b.ReportMetric(float64(bytes)/secs/1e6, "MB/s")
}

var benchResult = regexp.MustCompile(`RESULT cells=(\d+) bytes=(\d+) seconds=([0-9.]+)`)

// javaBench runs HBase's own client in the harness (testenv ClientBench)
// and returns the cells, bytes and seconds it reports.
func javaBench(b *testing.B, cl *testenv.Cluster, args ...string) (cells, bytes int64, secs float64) {
	b.Helper()
	res, err := cl.RunTool(context.Background(), "rangecopy.testenv.ClientBench", args, nil)
	if err != nil {
		b.Fatal(err)
	}
	m := benchResult.FindStringSubmatch(res.Output)
	if res.ExitCode != 0 || m == nil {
		b.Fatalf("ClientBench %v: exit %d:\n%s", args, res.ExitCode, res.Output)
	}
	cells, _ = strconv.ParseInt(m[1], 10, 64)
	bytes, _ = strconv.ParseInt(m[2], 10, 64)
	secs, _ = strconv.ParseFloat(m[3], 64)
	return cells, bytes, secs
}

// BenchmarkIntegrationScanVsJava scans the same 100,000-row, 4-region table
// with our client and with HBase's Java client (in the harness JVM, its own
// connection), alternating, and reports both rates and their ratio
// (go/java > 1 means ours is faster).
func BenchmarkIntegrationScanVsJava(b *testing.B) {
	cl, c, table := benchTable(b, "benchscanjava")
	ctx := context.Background()
	const rows, batch, caching = 100000, 2000, 1000
	for i := 0; i < rows; i += batch {
		if err := c.Apply(ctx, table, benchBatch(i, batch)); err != nil {
			b.Fatal(err)
		}
	}
	// One untimed pass each warms the block cache and both clients.
	javaBench(b, cl, "scan", table, strconv.Itoa(caching))
	var goSecs, javaSecs float64
	var goCells, javaCells, goBytes int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sc := c.Scan(table, hbase.Scan{Caching: caching})
		for sc.Next(ctx) {
			for _, cell := range sc.Result().Cells {
				goCells++
				goBytes += int64(len(cell.Row) + len(cell.Family) + len(cell.Qualifier) + len(cell.Value) + 12)
			}
		}
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
		goSecs += time.Since(start).Seconds()
		n, _, secs := javaBench(b, cl, "scan", table, strconv.Itoa(caching))
		javaCells += n
		javaSecs += secs
	}
	if goCells != int64(b.N*rows) || javaCells != int64(b.N*rows) {
		b.Fatalf("scanned %d cells with Go and %d with Java, want %d each", goCells, javaCells, b.N*rows)
	}
	b.ReportMetric(float64(goCells)/goSecs, "go-cells/s")
	b.ReportMetric(float64(goBytes)/goSecs/1e6, "go-MB/s")
	b.ReportMetric(float64(javaCells)/javaSecs, "java-cells/s")
	b.ReportMetric((float64(goCells)/goSecs)/(float64(javaCells)/javaSecs), "go/java")
}

// BenchmarkIntegrationPutVsJava writes batches of 1000 one-cell rows with our
// client and with HBase's Java client into the same table (different rows),
// alternating, and reports both rates and their ratio.
func BenchmarkIntegrationPutVsJava(b *testing.B) {
	cl, c, table := benchTable(b, "benchputjava")
	ctx := context.Background()
	const rows, batch = 20000, 1000
	var goSecs, javaSecs float64
	var javaCells int64
	next := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		for j := 0; j < rows; j += batch {
			if err := c.Apply(ctx, table, benchBatch(next+j, batch)); err != nil {
				b.Fatal(err)
			}
		}
		goSecs += time.Since(start).Seconds()
		next += rows
		n, _, secs := javaBench(b, cl, "put", table, strconv.Itoa(next), strconv.Itoa(rows), strconv.Itoa(batch), strconv.Itoa(benchValueSize))
		javaCells += n
		javaSecs += secs
		next += rows
	}
	goRate := float64(b.N*rows) / goSecs
	javaRate := float64(javaCells) / javaSecs
	b.ReportMetric(goRate, "go-cells/s")
	b.ReportMetric(javaRate, "java-cells/s")
	b.ReportMetric(goRate/javaRate, "go/java")
}
