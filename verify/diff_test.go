package verify

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"rangecopy/hfile"
)

func TestDiff(t *testing.T) {
	src := sorted(put("a", "q", 1, "x"), put("b", "q", 1, "y"), put("c", "q", 2, "z"), mark("d", "q", 1, hfile.TypeDelete))
	dst := sorted(put("a", "q", 1, "x"), put("b", "q", 1, "Y"), put("c", "q", 1, "z"), put("e\x00", "q", 1, "w"))
	var got []string
	same := 0
	err := Diff(&sliceIter{cells: src}, &sliceIter{cells: dst}, func(d Difference) { got = append(got, d.String()) }, func(*hfile.Cell) { same++ })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`value differs Put row b f:q ts 1 (source 1 bytes, target 1 bytes)`,
		`missing on target Put row c f:q ts 2`,
		`extra on target Put row c f:q ts 1`,
		`missing on target Delete row d f:q ts 1`,
		`extra on target Put row e\x00 f:q ts 1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if same != 1 {
		t.Errorf("%d equal cells, want 1", same)
	}
}

func TestReportRender(t *testing.T) {
	r := Report{Version: ReportVersion, SourceTable: "s", TargetTable: "t", Mode: ModeVisible, Batches: 2, BatchesMatched: 1, BatchesMismatched: 1,
		DifferenceCount: 1, Differences: []Difference{{Kind: ValueDiffers, Row: []byte{0, 'r'}, Family: "f", Qualifier: []byte("q"), Timestamp: 5,
			Type: hfile.TypePut, SourceValue: []byte("a"), TargetValue: []byte{0xff}}}}
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	d := back["differences"].([]any)[0].(map[string]any)
	if back["mode"] != "visible" || d["row"] != `\x00r` || d["kind"] != "value differs" || d["targetValue"] != `\xFF` || d["type"] != "Put" {
		t.Errorf("JSON %s", b.String())
	}
	var again Report
	if err := json.Unmarshal(b.Bytes(), &again); err != nil {
		t.Fatalf("read the JSON back: %v", err)
	}
	if !reflect.DeepEqual(again, r) {
		t.Errorf("JSON round trip\n got %+v\nwant %+v", again, r)
	}
	b.Reset()
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "DIFFERENT") || !strings.Contains(b.String(), `value differs Put row \x00r f:q ts 5`) {
		t.Errorf("text:\n%s", b.String())
	}
	if r.Equal() || !(Report{Batches: 3, BatchesMatched: 3}).Equal() {
		t.Error("Equal")
	}
}
