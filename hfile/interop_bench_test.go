package hfile

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"rangecopy/testenv"
)

var javaResult = regexp.MustCompile(`RESULT cells=(\d+) bytes=(\d+) seconds=([0-9.]+)`)

// javaHFileBench runs HBase's own writer or reader (testenv fixture
// HFileBench) in the harness and returns its cells, bytes and seconds.
func javaHFileBench(b *testing.B, args ...string) (cells, bytes int64, secs float64) {
	b.Helper()
	env := testenv.Get(b)
	root, err := testenv.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	classes := filepath.Join(root, "testenv", "target", "classes")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := env.Source.RunTool(ctx, "rangecopy.testenv.fixtures.HFileBench", args, []string{classes})
	if err != nil {
		b.Fatal(err)
	}
	m := javaResult.FindStringSubmatch(res.Output)
	if res.ExitCode != 0 || m == nil {
		b.Fatalf("HFileBench %v: exit %d:\n%s", args, res.ExitCode, res.Output)
	}
	cells, _ = strconv.ParseInt(m[1], 10, 64)
	bytes, _ = strconv.ParseInt(m[2], 10, 64)
	secs, _ = strconv.ParseFloat(m[3], 64)
	return cells, bytes, secs
}

// benchWriteGo writes the cells HFileBench writes, with our writer, and
// returns the key and value bytes written and the seconds it took.
func benchWriteGo(b *testing.B, path string, enc Encoding, comp Compression, n, valueSize int) (int64, float64) {
	b.Helper()
	start := time.Now()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w := NewWriter(bw, WriterOptions{BlockSize: 64 << 10, Encoding: enc, Compression: comp})
	value := make([]byte, valueSize)
	c := &Cell{Family: []byte("f"), Qualifier: []byte("q"), Type: TypePut, Value: value}
	var bytes int64
	row := []byte("row000000000")
	for i := 0; i < n; i++ {
		// "row%09d", built as HFileBench builds it.
		for d, v := 11, i; d >= 3; d, v = d-1, v/10 {
			row[d] = byte('0' + v%10)
		}
		value[0], value[valueSize-1] = byte(i), byte(i>>8)
		c.Row, c.Timestamp = row, int64(1000+i)
		if err := w.Append(c); err != nil {
			b.Fatal(err)
		}
		bytes += int64(2 + len(row) + 1 + 1 + 1 + 9 + valueSize)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return bytes, time.Since(start).Seconds()
}

// benchReadGo decodes and iterates every cell of path with our reader.
func benchReadGo(b *testing.B, path string) (cells, bytes int64, secs float64) {
	b.Helper()
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	r, err := Open(f, st.Size(), path)
	if err != nil {
		b.Fatal(err)
	}
	s := r.Scanner(ScanOptions{})
	for s.Next() {
		c := s.Cell()
		cells++
		bytes += int64(2 + len(c.Row) + 1 + len(c.Family) + len(c.Qualifier) + 9 + len(c.Value))
	}
	if err := s.Err(); err != nil {
		b.Fatal(err)
	}
	return cells, bytes, time.Since(start).Seconds()
}

// BenchmarkVsJava writes 200,000 cells of 100-byte values with HBase's
// writer and ours, then reads HBase's file with HBase's reader and ours, in
// one run, and reports each side's MB/s (key and value bytes) and go/java
// ratios (above 1: ours is faster). Java runs after a JIT warm-up.
func BenchmarkVsJava(b *testing.B) {
	for _, tc := range []struct {
		name      string
		enc, comp string
		encoding  Encoding
		codec     Compression
	}{
		{"NONE", "NONE", "NONE", EncodingNone, CompressionNone},
		{"FAST_DIFF", "FAST_DIFF", "NONE", EncodingFastDiff, CompressionNone},
		{"SNAPPY", "NONE", "SNAPPY", EncodingNone, CompressionSnappy},
	} {
		b.Run(tc.name, func(b *testing.B) {
			const n, valueSize = 200000, 100
			dir := b.TempDir()
			javaFile := filepath.Join(dir, "java.hfile")
			var goW, javaW, goR, javaR struct {
				bytes int64
				secs  float64
			}
			for i := 0; i < b.N; i++ {
				cells, bytes, secs := javaHFileBench(b, "write", javaFile, tc.enc, tc.comp, strconv.Itoa(n), strconv.Itoa(valueSize))
				if cells != n {
					b.Fatalf("HBase wrote %d cells, want %d", cells, n)
				}
				javaW.bytes, javaW.secs = javaW.bytes+bytes, javaW.secs+secs
				bytes, secs = benchWriteGo(b, filepath.Join(dir, "go.hfile"), tc.encoding, tc.codec, n, valueSize)
				goW.bytes, goW.secs = goW.bytes+bytes, goW.secs+secs
				cells, bytes, secs = javaHFileBench(b, "read", javaFile)
				if cells != n {
					b.Fatalf("HBase read %d cells, want %d", cells, n)
				}
				javaR.bytes, javaR.secs = javaR.bytes+bytes, javaR.secs+secs
				cells, bytes, secs = benchReadGo(b, javaFile)
				if cells != n {
					b.Fatalf("we read %d cells of HBase's file, want %d", cells, n)
				}
				goR.bytes, goR.secs = goR.bytes+bytes, goR.secs+secs
			}
			if goW.bytes != javaW.bytes || goR.bytes != javaR.bytes {
				b.Fatalf("the two sides counted different bytes: write %d vs %d, read %d vs %d", goW.bytes, javaW.bytes, goR.bytes, javaR.bytes)
			}
			rate := func(x struct {
				bytes int64
				secs  float64
			}) float64 {
				return float64(x.bytes) / x.secs / 1e6
			}
			b.ReportMetric(rate(goW), "go-write-MB/s")
			b.ReportMetric(rate(javaW), "java-write-MB/s")
			b.ReportMetric(rate(goW)/rate(javaW), "write-go/java")
			b.ReportMetric(rate(goR), "go-read-MB/s")
			b.ReportMetric(rate(javaR), "java-read-MB/s")
			b.ReportMetric(rate(goR)/rate(javaR), "read-go/java")
		})
	}
}
