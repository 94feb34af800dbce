package hbase_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

const benchValueSize = 100

// benchTable creates a 4-region table on the source cluster for a benchmark.
func benchTable(b *testing.B, prefix string) (*testenv.Cluster, *hbase.Client, string) {
	env := testenv.Get(b)
	cl := env.Source
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := hbase.Dial(ctx, hbase.Config{ZKQuorum: strings.Split(cl.ZKQuorum, ","), ZNodeParent: cl.ZNodeParent})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
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
