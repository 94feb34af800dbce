package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/colinmarc/hdfs/v2"
	"github.com/spf13/cobra"

	"rangecopy/hfile"
	"rangecopy/job"
)

// errDamaged marks an HFile that failed a check; the report says which.
var errDamaged = errors.New("file failed its checks")

func newHFileCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "hfile <subcommand>",
		Short: "inspect an HFile: trailer, file info, index, blocks, checks",
		Args:  cobra.ArbitraryArgs,
		RunE:  needSubcommand("hfile subcommand"),
	}
	var opts inspectOptions
	inspect := &cobra.Command{
		Use:   "inspect <file or hdfs://namenode:port/path>",
		Short: "print an HFile's trailer, file info, index and block statistics, and check it",
		Long: `Prints an HFile's trailer, file info, data index and block statistics, reads
every block (verifying checksums) and every cell (checking key order), like
HBase's HFile pretty printer. Exits with status 1 if the file is damaged.`,
		Example: `  rangecopy hfile inspect --cells /tmp/3f0c2a9e1b7d4c0e
  rangecopy hfile inspect --user hbase hdfs://nn:8020/hbase/data/ns/events/<region>/cf/<file>`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("want exactly one file, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return inspect(c.Context(), args[0], opts, c.OutOrStdout())
		},
	}
	fs := inspect.Flags()
	fs.SortFlags = false
	fs.BoolVar(&opts.cells, "cells", false, "print every cell (key, value length, sequence id)")
	fs.BoolVar(&opts.values, "values", false, "with --cells, print values too")
	fs.BoolVar(&opts.blocks, "blocks", false, "print every block (type, offset, sizes)")
	opts.user.add(fs, "HDFS user for hdfs:// paths")
	c.AddCommand(inspect)
	return c
}

type inspectOptions struct {
	cells, values, blocks bool
	user                  userFlag
}

// openFile opens a local path or an hdfs:// URI for random reads.
func openFile(name, hdfsUser string) (io.ReaderAt, int64, func() error, error) {
	if !strings.HasPrefix(name, "hdfs://") {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, nil, err
		}
		if st.IsDir() {
			f.Close()
			return nil, 0, nil, fmt.Errorf("%s is a directory, not an HFile", name)
		}
		return f, st.Size(), f.Close, nil
	}
	u, err := url.Parse(name)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("bad HDFS URI %q: %w", name, err)
	}
	if u.Host == "" {
		return nil, 0, nil, fmt.Errorf("HDFS URI %q names no NameNode (want hdfs://host:port/path)", name)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "8020")
	}
	client, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: []string{addr}, User: hdfsUser})
	if err != nil {
		return nil, 0, nil, fmt.Errorf("connect to NameNode %s: %w", addr, err)
	}
	f, err := client.Open(u.Path)
	if err != nil {
		client.Close()
		return nil, 0, nil, err
	}
	if f.Stat().IsDir() {
		f.Close()
		client.Close()
		return nil, 0, nil, fmt.Errorf("%s is a directory, not an HFile", name)
	}
	return f, f.Stat().Size(), func() error {
		err := f.Close()
		client.Close()
		return err
	}, nil
}

func inspect(ctx context.Context, name string, opts inspectOptions, w io.Writer) error {
	ra, size, closeFn, err := openFile(name, opts.user.get())
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer closeFn()
	r, err := hfile.Open(ra, size, name)
	if err != nil {
		return err
	}
	t := r.Trailer()
	info := r.Info()
	fmt.Fprintf(w, "file       %s (%d bytes)\n", name, size)
	fmt.Fprintf(w, "trailer    version %d.%d, compression %s, comparator %s\n", t.MajorVersion, t.MinorVersion, t.Compression, t.ComparatorClassName)
	fmt.Fprintf(w, "           %d cells, %d bytes uncompressed, data blocks at [%d, %d], load-on-open at %d, file info at %d\n",
		t.EntryCount, t.TotalUncompressedBytes, t.FirstDataBlockOffset, t.LastDataBlockOffset, t.LoadOnOpenDataOffset, t.FileInfoOffset)
	fmt.Fprintf(w, "           data index: %d level(s), %d root entries, %d bytes uncompressed; %d meta blocks\n",
		t.NumDataIndexLevels, t.DataIndexCount, t.UncompressedDataIndexSize, t.MetaIndexCount)
	fmt.Fprintf(w, "encoding   %s, tags %v (max %d), mvcc %v\n", info.Encoding, info.IncludesTags, info.MaxTagsLen, info.IncludesMVCC)
	if first, last := r.FirstKey(), r.LastKey(); first != nil && last != nil {
		fmt.Fprintf(w, "keys       first %s\n           last  %s\n", keyString(first), keyString(last))
	} else {
		fmt.Fprintf(w, "keys       none (empty file)\n")
	}
	if info.HasTimeRange {
		fmt.Fprintf(w, "timerange  [%d, %d]\n", info.TimeRangeMin, info.TimeRangeMax)
	}
	if info.HasMaxSeqID {
		fmt.Fprintf(w, "max seq id %d\n", info.MaxSeqID)
	}
	fmt.Fprintf(w, "bloom      %s\n", info.BloomType)
	fmt.Fprintln(w, "file info")
	keys := make([]string, 0, len(info.Raw))
	for k := range info.Raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-30s %s\n", k, rawValue(k, info.Raw[k]))
	}

	if err := ctx.Err(); err != nil {
		return err
	}
	var problems []string
	idx, err := r.DataIndex()
	if err != nil {
		problems = append(problems, fmt.Sprintf("data index: %v", err))
	}
	type stat struct {
		n                  int
		onDisk, plain      int64
		minPlain, maxPlain int
	}
	stats := map[hfile.BlockType]*stat{}
	var order []hfile.BlockType
	dataBlocks := 0
	err = r.Blocks(func(b hfile.BlockInfo) error {
		if opts.blocks {
			fmt.Fprintf(w, "block      %-18s at %-10d %8d bytes on disk, %8d uncompressed\n", blockName(b.Type), b.Offset, b.OnDiskSize, b.UncompressedSize)
		}
		s := stats[b.Type]
		if s == nil {
			s = &stat{minPlain: b.UncompressedSize}
			stats[b.Type] = s
			order = append(order, b.Type)
		}
		s.n++
		s.onDisk += int64(b.OnDiskSize)
		s.plain += int64(b.UncompressedSize)
		s.minPlain = min(s.minPlain, b.UncompressedSize)
		s.maxPlain = max(s.maxPlain, b.UncompressedSize)
		if b.Type == hfile.BlockData || b.Type == hfile.BlockEncodedData {
			dataBlocks++
		}
		return ctx.Err()
	})
	if err != nil {
		problems = append(problems, fmt.Sprintf("blocks: %v", err))
	}
	for _, typ := range order {
		s := stats[typ]
		fmt.Fprintf(w, "blocks     %-18s %6d: %d bytes on disk, %d uncompressed (min %d, avg %d, max %d)\n",
			blockName(typ), s.n, s.onDisk, s.plain, s.minPlain, s.plain/int64(s.n), s.maxPlain)
	}
	if err == nil && idx != nil && len(idx) != dataBlocks {
		problems = append(problems, fmt.Sprintf("data index lists %d blocks, the file holds %d", len(idx), dataBlocks))
	}

	sc := r.Scanner(hfile.ScanOptions{})
	var prev *hfile.Cell
	var n uint64
	types := map[hfile.CellType]uint64{}
	for sc.Next() {
		c := sc.Cell()
		if prev != nil && hfile.Compare(prev, c) >= 0 && len(problems) < 20 {
			problems = append(problems, fmt.Sprintf("cell %d: %s is not after %s", n, keyString(c), keyString(prev)))
		}
		if opts.cells {
			fmt.Fprintf(w, "K: %s/vlen=%d/seqid=%d", keyString(c), len(c.Value), c.SeqID)
			if opts.values {
				fmt.Fprintf(w, " V: %s", job.FormatKey(c.Value))
			}
			fmt.Fprintln(w)
		}
		types[c.Type]++
		n++
		prev = c.Clone()
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, fmt.Sprintf("cells: %v", err))
	}
	if n != t.EntryCount && sc.Err() == nil {
		problems = append(problems, fmt.Sprintf("read %d cells, the trailer says %d", n, t.EntryCount))
	}
	var typeCounts []string
	for typ, k := range types {
		typeCounts = append(typeCounts, fmt.Sprintf("%s %d", typ, k))
	}
	sort.Strings(typeCounts)
	fmt.Fprintf(w, "cells      %d read (%s)\n", n, strings.Join(typeCounts, ", "))
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(w, "PROBLEM    %s\n", p)
		}
		return fmt.Errorf("%s: %w: %d problem(s), listed above", name, errDamaged, len(problems))
	}
	fmt.Fprintln(w, "check      ok: checksums verified, cells in order, counts match")
	return nil
}

// blockName names a block type as HBase's BlockType enum does.
func blockName(t hfile.BlockType) string {
	switch t {
	case hfile.BlockData:
		return "DATA"
	case hfile.BlockEncodedData:
		return "ENCODED_DATA"
	case hfile.BlockLeafIndex:
		return "LEAF_INDEX"
	case hfile.BlockBloomChunk:
		return "BLOOM_CHUNK"
	case hfile.BlockMeta:
		return "META"
	case hfile.BlockIntermediateIndex:
		return "INTERMEDIATE_INDEX"
	case hfile.BlockRootIndex:
		return "ROOT_INDEX"
	case hfile.BlockFileInfo:
		return "FILE_INFO"
	case hfile.BlockGeneralBloomMeta:
		return "GENERAL_BLOOM_META"
	case hfile.BlockDeleteFamilyBloomMeta:
		return "DELETE_FAMILY_BLOOM_META"
	}
	return t.String()
}

// keyString writes a cell key as HBase does, with binary-safe escapes.
func keyString(c *hfile.Cell) string {
	return fmt.Sprintf("%s/%s:%s/%d/%s", job.FormatKey(c.Row), job.FormatKey(c.Family), job.FormatKey(c.Qualifier), c.Timestamp, c.Type)
}

// rawValue renders a file info value: numbers for the fixed-width keys HBase
// writes as longs, ints and booleans, escaped bytes otherwise.
func rawValue(key string, v []byte) string {
	switch key {
	case hfile.FileInfoAvgKeyLen, hfile.FileInfoAvgValueLen, hfile.FileInfoMaxTagsLen, hfile.FileInfoKeyValueVersion:
		if len(v) == 4 {
			return fmt.Sprint(int32(binary.BigEndian.Uint32(v)))
		}
	case hfile.FileInfoCreateTime, hfile.FileInfoMaxMemstoreTS, hfile.FileInfoMaxSeqID, hfile.FileInfoEarliestPutTS,
		hfile.FileInfoBulkLoadTimestamp, hfile.FileInfoDeleteFamilyCount:
		if len(v) == 8 {
			return fmt.Sprint(int64(binary.BigEndian.Uint64(v)))
		}
	case hfile.FileInfoMajorCompaction, hfile.FileInfoExcludeFromMinor, hfile.FileInfoTagsCompressed:
		if len(v) == 1 {
			return fmt.Sprint(v[0] != 0)
		}
	case hfile.FileInfoLastKey:
		if c, err := hfile.ParseKey(v); err == nil {
			return keyString(c)
		}
	}
	return job.FormatKey(v)
}
