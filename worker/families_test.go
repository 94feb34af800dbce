package worker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/memory"
)

// familyCells are manyRows(n) in family fam.
func familyCells(fam string, n int) []*hfile.Cell {
	cells := manyRows(n)
	for _, c := range cells {
		c.Family = []byte(fam)
	}
	return cells
}

// twoFamilyTask is a task over families f and g, one input each (g's twice as many rows).
func twoFamilyTask(t *testing.T) Task {
	dir := t.TempDir()
	task := baseTask(t)
	task.Families = map[string]FamilySettings{"f": {}, "g": {}}
	for i, fam := range []string{"f", "g"} {
		p := writeHFile(t, dir, "in-"+fam, hfile.WriterOptions{}, familyCells(fam, 50*(i+1)))
		in := input(p)
		in.File.Family = fam
		task.Inputs = append(task.Inputs, in)
	}
	return task
}

// outputsByFamily reads every emitted data file back, by family, and checks each family
// ended once, after its files.
func outputsByFamily(t *testing.T, c *collector) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	ended := map[string]bool{}
	for _, f := range c.files {
		if ended[f.Family] {
			t.Errorf("family %s: %s emitted after its end", f.Family, f.Path)
		}
		if f.Last {
			ended[f.Family] = true
			continue
		}
		for _, cell := range readCells(t, f.Path) {
			out[f.Family] = append(out[f.Family], cell.String())
		}
	}
	for fam := range out {
		if !ended[fam] {
			t.Errorf("family %s never ended", fam)
		}
	}
	return out
}

func TestRunParallelFamiliesCopiesTheSame(t *testing.T) {
	for _, noFast := range []bool{false, true} {
		t.Run(fmt.Sprintf("noFastPath=%v", noFast), func(t *testing.T) {
			seq := run(t, twoFamilyTask(t), Options{NoFastPath: noFast})
			par := run(t, twoFamilyTask(t), Options{NoFastPath: noFast, ParallelFamilies: true})
			a, b := outputsByFamily(t, seq), outputsByFamily(t, par)
			for _, fam := range []string{"f", "g"} {
				if len(a[fam]) == 0 || strings.Join(a[fam], "\n") != strings.Join(b[fam], "\n") {
					t.Errorf("family %s: %d cells one after the other, %d at once; want the same, not none", fam, len(a[fam]), len(b[fam]))
				}
			}
		})
	}
}

func TestRunParallelFamiliesFailsWithTheFailingFamily(t *testing.T) {
	task := twoFamilyTask(t)
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("not an hfile"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := input(bad)
	in.File.Family = "g"
	task.Inputs = append(task.Inputs, in)
	err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}, NoFastPath: true, ParallelFamilies: true}, (&collector{}).emit)
	if err == nil || !strings.Contains(err.Error(), "family g") || !strings.Contains(err.Error(), bad) {
		t.Errorf("a corrupt input of family g: %v; want an error naming the family and the file", err)
	}
}

func TestParallelFamiliesDecision(t *testing.T) {
	share := memory.New(256 << 20).Share(4)
	two := []*familyRun{{family: "f"}, {family: "g"}}
	inputs := func(n int) map[string][]Input {
		return map[string][]Input{"f": make([]Input, n), "g": make([]Input, n)}
	}
	tests := []struct {
		name      string
		taskBytes int64
		runs      []*familyRun
		inputs    map[string][]Input
		share     int64
		want      bool
	}{
		{"small task, two families", 1 << 20, two, inputs(1), share, true},
		{"one family to run", 1 << 20, two[:1], inputs(1), share, false},
		{"large task", SmallTaskBytes + 1, two, inputs(1), share, false},
		{"at the size bound", SmallTaskBytes, two, inputs(1), share, true},
		{"half the share too small for the inputs", 1 << 20, two, inputs(40), share, false},
	}
	for _, tt := range tests {
		if got := parallelFamilies(tt.taskBytes, tt.runs, tt.inputs, tt.share); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
