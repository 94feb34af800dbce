// Command demo shows rangecopy end to end on the test environment: it writes a
// sample table through HBase's normal write path on the source cluster (four
// regions, two families, three versions, every delete kind), runs
// bin/rangecopy copy for a key range into the target cluster and compares the
// range on both clusters cell for cell (raw scans: every version and delete
// marker). Then it starts bin/rangecopy server (embedded SQLite catalog and
// workers), relocates the table to a renamed target while a writer writes,
// cuts over once catch-up windows and a verification passed, prints the
// report and compares the whole table.
//
// Usage (from the module root, with the clusters up and bin/rangecopy built):
//
//	go run ./testenv/cmd/demo [-table demo] [-rows 400] [-value 0]
//
// -rows sets the rows written (the copy takes the middle three quarters)
// and -value pads every q1 value to that many bytes, for a bigger copy.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"rangecopy/render"
	"rangecopy/testenv"
)

// sample is the table the demo writes and the range it copies.
type sample struct {
	table          string
	rows, value    int
	startRow, stop string
}

func rowKey(i int) string { return fmt.Sprintf("row-%06d", i) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var s sample
	flag.StringVar(&s.table, "table", "demo", "table to write and copy")
	flag.IntVar(&s.rows, "rows", 400, "rows to write (at least 8)")
	flag.IntVar(&s.value, "value", 0, "pad q1 values to this many bytes")
	flag.Parse()
	if s.rows < 8 {
		fmt.Fprintln(os.Stderr, "demo: -rows must be at least 8")
		os.Exit(2)
	}
	s.startRow, s.stop = rowKey(s.rows/8), rowKey(s.rows*7/8)
	if err := run(ctx, s, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "demo: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, s sample, stdout, stderr io.Writer) error {
	table, startRow, stopRow := s.table, s.startRow, s.stop
	dir, err := testenv.DefaultDir()
	if err != nil {
		return err
	}
	env, err := testenv.Load(dir)
	if err != nil {
		return fmt.Errorf("%w (run make testenv-up)", err)
	}
	root, err := testenv.ModuleRoot()
	if err != nil {
		return err
	}
	bin := filepath.Join(root, "bin", "rangecopy")
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("%s: %w (run make build)", bin, err)
	}
	fmt.Fprintf(stdout, "demo: writing table %q on the source cluster (%s)\n", table, env.Source.ClusterKey)
	n, err := writeSample(ctx, env.Source, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "demo: wrote %d cells in 4 regions, families cf1 and cf2, 3 versions, every delete kind\n", n)
	// A fresh target table each time, so the copy creates it.
	_ = env.Target.DeleteTable(ctx, table)

	args := []string{"copy", "--source", env.Source.ConfDir, "--target", env.Target.ConfDir,
		"--table", table, "--start-row", startRow, "--stop-row", stopRow, "--create-table"}
	fmt.Fprintf(stdout, "demo: bin/rangecopy %s\n", quote(args))
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("rangecopy copy: %w", err)
	}

	spec := testenv.ScanSpec{StartRow: []byte(startRow), StopRow: []byte(stopRow), Raw: true}
	src, err := env.Source.Scan(ctx, table, spec)
	if err != nil {
		return fmt.Errorf("scan source: %w", err)
	}
	dst, err := env.Target.Scan(ctx, table, spec)
	if err != nil {
		return fmt.Errorf("scan target: %w", err)
	}
	if err := compare(src, dst); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "demo: %d cells compared in %s (raw scans, every version and delete marker), all equal\n", len(src), render.Rows(startRow, stopRow))
	return relocate(ctx, env, bin, table, stdout, stderr)
}

func quote(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// writeSample (re)creates the demo table and writes it in three flushed
// rounds, so each region has several store files.
func writeSample(ctx context.Context, c *testenv.Cluster, s sample) (int, error) {
	table := s.table
	_ = c.DeleteTable(ctx, table)
	fams := []testenv.Family{{Name: "cf1", MaxVersions: 3}, {Name: "cf2", MaxVersions: 3, Compression: "GZ"}}
	splits := [][]byte{[]byte(rowKey(s.rows / 4)), []byte(rowKey(s.rows / 2)), []byte(rowKey(s.rows * 3 / 4))}
	if err := c.CreateTable(ctx, table, fams, splits); err != nil {
		return 0, fmt.Errorf("create source table %s: %w", table, err)
	}
	base := time.Now().UnixMilli() - 10_000
	total := 0
	for round := 0; round < 3; round++ {
		var cells []testenv.Cell
		ts := base + int64(round)*1000
		for i := 0; i < s.rows; i++ {
			row := []byte(rowKey(i))
			for _, fam := range []string{"cf1", "cf2"} {
				cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte("q1"), Timestamp: ts, Type: "Put",
					Value: pad(fmt.Sprintf("%s-%s-v%d", row, fam, round), s.value)})
				if i%3 == 0 {
					cells = append(cells, testenv.Cell{Row: row, Family: []byte(fam), Qualifier: []byte("q2"), Timestamp: ts, Type: "Put",
						Value: bytes.Repeat([]byte{byte(i), byte(round)}, 50)})
				}
			}
			if round == 2 {
				switch i % 10 {
				case 1:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Qualifier: []byte("q1"), Timestamp: base, Type: "Delete"})
				case 2:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf1"), Qualifier: []byte("q2"), Timestamp: ts, Type: "DeleteColumn"})
				case 3:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf2"), Timestamp: ts, Type: "DeleteFamily"})
				case 4:
					cells = append(cells, testenv.Cell{Row: row, Family: []byte("cf2"), Timestamp: base + 1000, Type: "DeleteFamilyVersion"})
				}
			}
		}
		for len(cells) > 0 {
			n := min(len(cells), 5000)
			if err := c.Mutate(ctx, table, cells[:n]); err != nil {
				return 0, fmt.Errorf("write round %d: %w", round, err)
			}
			total += n
			cells = cells[n:]
		}
		if err := c.Flush(ctx, table); err != nil {
			return 0, fmt.Errorf("flush round %d: %w", round, err)
		}
	}
	return total, nil
}

// compare checks two raw scans are the same cells in the same order.
func compare(src, dst []testenv.Cell) error {
	if len(src) == 0 {
		return errors.New("the source range holds no cells")
	}
	for i := 0; i < len(src) && i < len(dst); i++ {
		if !equal(src[i], dst[i]) {
			return fmt.Errorf("cell %d differs: source %s, target %s", i, show(src[i]), show(dst[i]))
		}
	}
	if len(src) != len(dst) {
		return fmt.Errorf("source has %d cells, target %d", len(src), len(dst))
	}
	return nil
}

func equal(a, b testenv.Cell) bool {
	return bytes.Equal(a.Row, b.Row) && bytes.Equal(a.Family, b.Family) && bytes.Equal(a.Qualifier, b.Qualifier) &&
		a.Timestamp == b.Timestamp && a.Type == b.Type && bytes.Equal(a.Value, b.Value)
}

func show(c testenv.Cell) string {
	return fmt.Sprintf("%q/%s:%s/%d/%s", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type)
}

// pad lengthens s to n bytes with dots.
func pad(s string, n int) []byte {
	b := []byte(s)
	for len(b) < n {
		b = append(b, '.')
	}
	return b
}
