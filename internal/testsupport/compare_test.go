package testsupport

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

func put(row, qual string, ts uint64, val string) hbase.Cell {
	return hbase.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(qual), Timestamp: ts, Type: hbase.CellTypePut, Value: []byte(val)}
}

func marker(row, qual string, ts uint64, typ hbase.CellType) hbase.Cell {
	return hbase.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(qual), Timestamp: ts, Type: typ}
}

func iter(cells []hbase.Cell) func() (hbase.Cell, bool) {
	return func() (hbase.Cell, bool) {
		if len(cells) == 0 {
			return hbase.Cell{}, false
		}
		c := cells[0]
		cells = cells[1:]
		return c, true
	}
}

func TestMerge(t *testing.T) {
	// In scan order: row, qualifier, newest first, marker before put.
	a1 := put("a", "q", 20, "new")
	a1del := marker("a", "q", 10, hbase.CellTypeDelete)
	a1old := put("a", "q", 10, "old")
	b1 := put("b", "q", 5, "b")
	fam := marker("c", "", 7, hbase.CellTypeDeleteFamily)
	c1 := put("c", "q", 7, "c")
	changed := put("b", "q", 5, "B")
	tests := []struct {
		name     string
		src, dst []hbase.Cell
		same     int
		diffs    []string
	}{
		{"equal", []hbase.Cell{a1, a1del, a1old, b1, fam, c1}, []hbase.Cell{a1, a1del, a1old, b1, fam, c1}, 6, nil},
		{"both empty", nil, nil, 0, nil},
		{"a marker missing in the middle", []hbase.Cell{a1, a1del, a1old, b1}, []hbase.Cell{a1, a1old, b1}, 3,
			[]string{`target lacks row "a" f:q ts 10 Delete value "" (0 bytes)`}},
		{"an extra cell at the end", []hbase.Cell{a1}, []hbase.Cell{a1, c1}, 1,
			[]string{`target has extra row "c" f:q ts 7 Put value "c" (1 bytes)`}},
		{"a value differs", []hbase.Cell{a1, b1, c1}, []hbase.Cell{a1, changed, c1}, 2,
			[]string{`row "b" f:q ts 5 Put: source value "b" (1 bytes), target value "B" (1 bytes)`}},
		{"empty target", []hbase.Cell{b1, fam}, nil, 0,
			[]string{`target lacks row "b" f:q ts 5 Put value "b" (1 bytes)`, `target lacks row "c" f: ts 7 DeleteFamily value "" (0 bytes)`}},
		{"a version older in the target", []hbase.Cell{a1}, []hbase.Cell{a1old}, 0,
			[]string{`target lacks row "a" f:q ts 20 Put value "new" (3 bytes)`, `target has extra row "a" f:q ts 10 Put value "old" (3 bytes)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			same := 0
			var diffs []string
			merge(iter(tc.src), iter(tc.dst), func(hbase.Cell) { same++ }, func(d Difference) { diffs = append(diffs, d.String()) })
			if same != tc.same || !slices.Equal(diffs, tc.diffs) {
				t.Errorf("merge: %d same, differences\n  %s\nwant %d same,\n  %s", same, strings.Join(diffs, "\n  "), tc.same, strings.Join(tc.diffs, "\n  "))
			}
		})
	}
}

func TestCompareKeysOrdersAsHBaseScans(t *testing.T) {
	ordered := []hbase.Cell{
		marker("a", "", 30, hbase.CellTypeDeleteFamily),
		marker("a", "", 30, hbase.CellTypeDeleteFamilyVersion),
		marker("a", "q", 30, hbase.CellTypeDeleteColumn),
		marker("a", "q", 30, hbase.CellTypeDelete),
		put("a", "q", 30, "x"),
		put("a", "q", 2, "x"),
		put("a", "r", 40, "x"),
		{Row: []byte("a"), Family: []byte("g"), Qualifier: []byte("a"), Timestamp: 1, Type: hbase.CellTypePut},
		put("a\x00", "q", 1, "x"),
		put("b", "q", 1, "x"),
	}
	for i := 1; i < len(ordered); i++ {
		if c := compareKeys(ordered[i-1], ordered[i]); c >= 0 {
			t.Errorf("compareKeys(%s, %s) = %d, want < 0", FormatCell(ordered[i-1]), FormatCell(ordered[i]), c)
		}
		if c := compareKeys(ordered[i], ordered[i]); c != 0 {
			t.Errorf("compareKeys of %s with itself = %d", FormatCell(ordered[i]), c)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{nil, `""`},
		{[]byte("row-1_a.b"), `"row-1_a.b"`},
		{[]byte{0x00, 'a', 0xff, 0x7f, '\n'}, `"\x00a\xFF\x7F\x0A"`},
		{[]byte(`q"\`), `"q\x22\x5C"`},
	}
	for _, tc := range tests {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	long := formatValue([]byte(strings.Repeat("v", 100)))
	if want := `"` + strings.Repeat("v", maxValueShown) + `"… (100 bytes)`; long != want {
		t.Errorf("formatValue of 100 bytes = %s, want %s", long, want)
	}
}

// TestOnlyTestsImportIt checks that no package's non-test code imports
// this package.
// testSupport are the packages of test support themselves, which may import
// this one: their non-test code exists only for tests.
var testSupport = map[string]bool{"rangecopy/testenv/copytest": true}

func TestOnlyTestsImportIt(t *testing.T) {
	root, err := testenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "go", "list", "-f", `{{.ImportPath}}:{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const self = "rangecopy/internal/testsupport"
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range lines {
		pkg, imports, _ := strings.Cut(l, ":")
		if slices.Contains(strings.Fields(imports), self) && !testSupport[pkg] {
			t.Errorf("%s imports %s in non-test code", pkg, self)
		}
	}
	if len(lines) < 10 {
		t.Errorf("go list listed only %d packages: %s", len(lines), out)
	}
}
