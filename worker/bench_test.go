package worker

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
)

// benchInputs writes two interleaved input files of 600,000 cells (about
// 80 MiB unencoded) in all and returns their paths and total size.
func benchInputs(b *testing.B, opts hfile.WriterOptions) ([]Input, int64) {
	dir := b.TempDir()
	var x, y []*hfile.Cell
	rng := rand.New(rand.NewPCG(1, 2))
	for i, c := range manyRows(100000) { // 600,000 cells
		// 100-byte values, half random: they compress about 2:1.
		v := make([]byte, 100)
		for j := 0; j < 50; j++ {
			v[j] = byte(rng.IntN(256))
		}
		c.Value = v
		if i%2 == 0 {
			x = append(x, c)
		} else {
			y = append(y, c)
		}
	}
	var ins []Input
	var size int64
	for _, f := range []struct {
		name  string
		cells []*hfile.Cell
	}{{"x", x}, {"y", y}} {
		p := writeHFile(b, dir, f.name, opts, f.cells)
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
		ins = append(ins, input(p))
	}
	return ins, size
}

func benchRun(b *testing.B, task Task, o Options, size int64, cells int) {
	o.Source, o.Target = fsys.Local{}, fsys.Local{}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		task.OutputDir = b.TempDir()
		b.StartTimer()
		if err := Run(context.Background(), task, o, (&collector{}).emit); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cells)*float64(b.N)/b.Elapsed().Seconds(), "cells/s")
}

// BenchmarkPipeline measures the decode path (merge of two overlapping
// files) in input bytes per second, written with the input's settings.
func BenchmarkPipeline(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts hfile.WriterOptions
		set  FamilySettings
	}{
		{"NONE", hfile.WriterOptions{}, FamilySettings{}},
		{"FAST_DIFF+SNAPPY", hfile.WriterOptions{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy},
			FamilySettings{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ins, size := benchInputs(b, bc.opts)
			task := baseTask(b, ins...)
			task.Families["f"] = bc.set
			benchRun(b, task, Options{NoFastPath: true}, size, 600000)
		})
	}
}

// BenchmarkFastPath compares copying one FAST_DIFF+SNAPPY file byte for
// byte (with the read-back check) with decoding and re-encoding it.
func BenchmarkFastPath(b *testing.B) {
	opts := hfile.WriterOptions{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy}
	ins, _ := benchInputs(b, opts)
	st, err := os.Stat(ins[0].Path)
	if err != nil {
		b.Fatal(err)
	}
	task := baseTask(b, ins[0])
	task.Families["f"] = FamilySettings{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy}
	b.Run("fast", func(b *testing.B) { benchRun(b, task, Options{}, st.Size(), 300000) })
	b.Run("decode", func(b *testing.B) { benchRun(b, task, Options{NoFastPath: true}, st.Size(), 300000) })
}
