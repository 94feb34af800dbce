package job

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func regionsAt(bounds ...string) []Region {
	var rs []Region
	keys := append(append([]string{""}, bounds...), "")
	for i := 0; i+1 < len(keys); i++ {
		rs = append(rs, Region{EncodedName: fmt.Sprintf("r%d", i), Rows: kr(keys[i], keys[i+1])})
	}
	return rs
}

// indexed makes a file of n blocks of blockSize bytes, block i starting at row
// prefix+"%03d" of i*step.
func indexed(region, family, name, prefix string, n, step int, blockSize int64) StoreFile {
	f := StoreFile{Region: region, Family: family, Name: name, Size: int64(n) * blockSize}
	for i := 0; i < n; i++ {
		f.Index = append(f.Index, IndexEntry{Row: []byte(fmt.Sprintf("%s%03d", prefix, i*step)), Offset: int64(i) * blockSize})
	}
	f.FirstRow = f.Index[0].Row
	f.LastRow = []byte(fmt.Sprintf("%s%03d~", prefix, (n-1)*step))
	return f
}

func taskRanges(p Plan) string {
	var s []string
	for _, t := range p.Tasks {
		s = append(s, t.Region+t.Rows.String())
	}
	return strings.Join(s, " ")
}

func TestMakeClipsRegionsToTheRange(t *testing.T) {
	regions := regionsAt("b", "d")
	tests := []struct {
		rows KeyRange
		want string
	}{
		{kr("", ""), `r0[first row, "b") r1["b", "d") r2["d", last row]`},
		{kr("a", "c"), `r0["a", "b") r1["b", "c")`},
		{kr("b", "d"), `r1["b", "d")`},
		{kr("c", ""), `r1["c", "d") r2["d", last row]`},
		{kr("", "b\x00"), `r0[first row, "b") r1["b", "b\x00")`},
		{kr("z", ""), `r2["z", last row]`},
	}
	for _, tt := range tests {
		p, err := Make(Spec{Table: "t", Rows: tt.rows}, regions, nil, PlanOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tt.rows, err)
		}
		if got := taskRanges(p); got != tt.want {
			t.Errorf("rows %s: tasks %s, want %s", tt.rows, got, tt.want)
		}
	}
}

func TestMakePrunesAndFilters(t *testing.T) {
	regions := regionsAt("m")
	files := []StoreFile{
		{Region: "r0", Family: "f", Name: "old", Size: 10, HasTime: true, MinTime: 0, MaxTime: 99},
		{Region: "r0", Family: "f", Name: "edge", Size: 10, HasTime: true, MinTime: 50, MaxTime: 100},
		{Region: "r0", Family: "f", Name: "new", Size: 10, HasTime: true, MinTime: 200, MaxTime: 300},
		{Region: "r0", Family: "f", Name: "notime", Size: 10},
		{Region: "r0", Family: "g", Name: "otherfamily", Size: 10},
		{Region: "r0", Family: "f", Name: "lowrows", Size: 10, FirstRow: []byte("a"), LastRow: []byte("b")},
		{Region: "r1", Family: "f", Name: "r1file", Size: 10, HasTime: true, MinTime: 100, MaxTime: 100},
	}
	spec := Spec{Table: "t", Rows: kr("c", ""), Time: TimeRange{Min: 100, Max: 200}, Families: []string{"f"}}
	p, err := Make(spec, regions, files, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, task := range p.Tasks {
		for _, f := range task.Files {
			names = append(names, task.Region+"/"+f.Name)
		}
	}
	if got, want := strings.Join(names, " "), "r0/edge r0/notime r1/r1file"; got != want {
		t.Errorf("task files %s, want %s", got, want)
	}
	var pruned []string
	for _, pr := range p.Pruned {
		pruned = append(pruned, pr.File.Name+": "+pr.Reason.String())
	}
	if got, want := strings.Join(pruned, ", "), "old: outside the time range, new: outside the time range, lowrows: outside the row range"; got != want {
		t.Errorf("pruned %s, want %s", got, want)
	}
	if p.Bytes != 30 {
		t.Errorf("plan bytes %d, want 30", p.Bytes)
	}
}

func TestMakeRefusesBadInput(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		regions []Region
		files   []StoreFile
		want    string
	}{
		{"bad spec", Spec{Table: "t", Rows: kr("b", "a")}, regionsAt(), nil, "empty or reversed"},
		{"no regions", Spec{Table: "t"}, nil, nil, "no regions"},
		{"gap", Spec{Table: "t"}, []Region{{"a", kr("", "b")}, {"b", kr("c", "")}}, nil, "do not meet"},
		{"overlap", Spec{Table: "t"}, []Region{{"a", kr("", "c")}, {"b", kr("b", "")}}, nil, "do not meet"},
		{"open start", Spec{Table: "t"}, []Region{{"a", kr("a", "")}}, nil, "gap before a"},
		{"open end", Spec{Table: "t"}, []Region{{"a", kr("", "z")}}, nil, "gap after z"},
		{"unknown region", Spec{Table: "t"}, regionsAt(), []StoreFile{{Region: "nope", Family: "f", Name: "x"}}, "names region nope"},
	}
	for _, tt := range tests {
		_, err := Make(tt.spec, tt.regions, tt.files, PlanOptions{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Make error %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestMakeCutsLargeRegionsAtIndexKeys(t *testing.T) {
	regions := regionsAt()
	// Three files of 1000 bytes, 10 blocks each, rows k000..k090 (f1, f2) and k005..k095 (g).
	files := []StoreFile{
		indexed("r0", "f", "f1", "k", 10, 10, 100),
		indexed("r0", "f", "f2", "k", 10, 10, 100),
	}
	g := indexed("r0", "g", "g1", "k", 10, 10, 100)
	for i := range g.Index {
		g.Index[i].Row = append(g.Index[i].Row, '5')
	}
	g.FirstRow = g.Index[0].Row
	files = append(files, g)
	p, err := Make(Spec{Table: "t"}, regions, files, PlanOptions{TaskBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 3 {
		t.Fatalf("3000 bytes at 1000 a task: %d tasks: %s", len(p.Tasks), taskRanges(p))
	}
	checkTiles(t, p, KeyRange{})
	var sum int64
	for _, task := range p.Tasks {
		sum += task.Bytes
		if task.Bytes < 600 || task.Bytes > 1400 {
			t.Errorf("task %s %s has %d bytes, want about 1000", task.ID, task.Rows, task.Bytes)
		}
		if !bytes.HasPrefix(task.Rows.End, []byte("k")) && len(task.Rows.End) != 0 {
			t.Errorf("task %s ends at %q, not at an index key", task.ID, task.Rows.End)
		}
	}
	if sum != 3000 || p.Bytes != 3000 {
		t.Errorf("tasks hold %d bytes (plan says %d), want all 3000", sum, p.Bytes)
	}
	if p.Tasks[0].ID != "r0-000" || p.Tasks[2].ID != "r0-002" {
		t.Errorf("task ids %s, %s", p.Tasks[0].ID, p.Tasks[2].ID)
	}
}

func TestMakeEstimatesPartialRanges(t *testing.T) {
	f := indexed("r0", "f", "f1", "k", 10, 10, 100) // k000..k090, 100 bytes a block
	p, err := Make(Spec{Table: "t", Rows: kr("k030", "k050")}, regionsAt(), []StoreFile{f}, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tasks) != 1 || p.Tasks[0].Bytes != 200 {
		t.Fatalf("rows [k030, k050) of a 10-block file: %+v, want one task of 200 bytes", p.Tasks)
	}
}

// checkTiles fails unless the plan's tasks tile rows exactly, in order.
func checkTiles(t *testing.T, p Plan, rows KeyRange) {
	t.Helper()
	if len(p.Tasks) == 0 {
		t.Fatalf("no tasks for %s", rows)
	}
	if !bytes.Equal(p.Tasks[0].Rows.Start, rows.Start) {
		t.Fatalf("first task starts at %q, want %q", p.Tasks[0].Rows.Start, rows.Start)
	}
	for i, task := range p.Tasks {
		if task.Rows.Empty() {
			t.Fatalf("task %s has an empty range %s", task.ID, task.Rows)
		}
		if i > 0 && !bytes.Equal(p.Tasks[i-1].Rows.End, task.Rows.Start) {
			t.Fatalf("task %s %s does not start where %s %s ends", task.ID, task.Rows, p.Tasks[i-1].ID, p.Tasks[i-1].Rows)
		}
		for _, f := range task.Files {
			if !task.Rows.OverlapsRows(f.FirstRow, f.LastRow) {
				t.Fatalf("task %s %s reads %s [%q, %q], which holds none of its rows", task.ID, task.Rows, f.Name, f.FirstRow, f.LastRow)
			}
		}
	}
	if last := p.Tasks[len(p.Tasks)-1]; !bytes.Equal(last.Rows.End, rows.End) {
		t.Fatalf("last task ends at %q, want %q", last.Rows.End, rows.End)
	}
}

func TestMakeTilesRandomTables(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 300; iter++ {
		var bounds []string
		for b := 'b'; b < 'z'; b += rune(1 + rng.Intn(6)) {
			bounds = append(bounds, string(b))
		}
		regions := regionsAt(bounds...)
		var files []StoreFile
		for _, r := range regions {
			for i := 0; i < rng.Intn(4); i++ {
				lo := string(rune('a' + rng.Intn(26)))
				f := indexed(r.EncodedName, "f", fmt.Sprintf("%s-%d", r.EncodedName, i), lo, 1+rng.Intn(30), 1+rng.Intn(5), int64(1+rng.Intn(500)))
				// Keep the file inside its region, as a real store file is.
				clipped := f.Index[:0]
				for _, e := range f.Index {
					if r.Rows.Contains(e.Row) {
						clipped = append(clipped, e)
					}
				}
				if len(clipped) == 0 {
					continue
				}
				f.Index, f.FirstRow, f.LastRow = clipped, clipped[0].Row, clipped[len(clipped)-1].Row
				files = append(files, f)
			}
		}
		start, end := string(rune('a'+rng.Intn(26))), ""
		if rng.Intn(2) == 0 {
			end = start + string(rune('a'+rng.Intn(26)))
		}
		rows := kr(start, end)
		p, err := Make(Spec{Table: "t", Rows: rows}, regions, files, PlanOptions{TaskBytes: int64(100 + rng.Intn(3000))})
		if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
		checkTiles(t, p, rows)
	}
}

func TestMakeSkipEmpty(t *testing.T) {
	regions := regionsAt("m")
	old := StoreFile{Region: "r0", Family: "f", Name: "old", Size: 10, HasTime: true, MinTime: 0, MaxTime: 99}
	newer := StoreFile{Region: "r1", Family: "f", Name: "new", Size: 10, HasTime: true, MinTime: 150, MaxTime: 160}
	spec := Spec{Table: "t", Time: TimeRange{Min: 100, Max: 200}}
	tests := []struct {
		name      string
		files     []StoreFile
		skipEmpty bool
		want      string
	}{
		{"every region, empty or not", []StoreFile{old, newer}, false, `r0[first row, "m") r1["m", last row]`},
		{"only the region with a file in range", []StoreFile{old, newer}, true, `r1["m", last row]`},
		{"every file pruned: no task", []StoreFile{old}, true, ""},
		{"no files at all: no task", nil, true, ""},
	}
	for _, tt := range tests {
		p, err := Make(spec, regions, tt.files, PlanOptions{SkipEmpty: tt.skipEmpty, Slots: 4})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := taskRanges(p); got != tt.want {
			t.Errorf("%s: tasks %q, want %q", tt.name, got, tt.want)
		}
	}
}
