package relocate

import (
	"reflect"
	"testing"

	"rangecopy/relocation"
)

// TestCheckScopeTables names every table given twice, by source or by target, and only those.
func TestCheckScopeTables(t *testing.T) {
	tm := func(s, d string) relocation.TableMap { return relocation.TableMap{Source: s, Target: d} }
	for _, c := range []struct {
		name   string
		tables []relocation.TableMap
		want   []int
	}{
		{"distinct", []relocation.TableMap{tm("a", ""), tm("ns:a", ""), tm("b", "b2")}, nil},
		{"source twice", []relocation.TableMap{tm("a", ""), tm("b", ""), tm("a", "")}, []int{2}},
		{"default namespace spelt", []relocation.TableMap{tm("a", ""), tm("default:a", "")}, []int{1}},
		{"source twice, renamed", []relocation.TableMap{tm("a", "x"), tm("a", "y")}, []int{1}},
		{"one target for two", []relocation.TableMap{tm("a", "t"), tm("b", "t")}, []int{1}},
		{"renamed onto another's name", []relocation.TableMap{tm("a", ""), tm("b", "a")}, []int{1}},
		{"swap", []relocation.TableMap{tm("a", "b"), tm("b", "a")}, nil},
	} {
		var got []int
		for _, is := range CheckScopeTables(c.tables) {
			got = append(got, is.Index)
			if is.Message == "" {
				t.Errorf("%s: tables[%d] without a message", c.name, is.Index)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: issues at %v; want %v", c.name, got, c.want)
		}
	}
}
