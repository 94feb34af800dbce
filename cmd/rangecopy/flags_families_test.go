package main

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseFamilies: --families is a list of names; an empty name anywhere is a usage error,
// never dropped (a,,b) or read as "every family" (",").
func TestParseFamilies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "", want: nil},
		{in: "a", want: []string{"a"}},
		{in: "a, b", want: []string{"a", "b"}},
		{in: ",", err: `--families ",": name 1 of 2 is empty`},
		{in: "a,,b", err: `--families "a,,b": name 2 of 3 is empty`},
		{in: "a,", err: "name 2 of 2 is empty"},
		{in: " ", err: "name 1 of 1 is empty"},
	} {
		got, err := parseFamilies(tc.in)
		if tc.err != "" {
			if err == nil || !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseFamilies(%q) = %q, %v; want usage error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseFamilies(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestFamiliesUsage: copy and verify refuse an empty family name with exit 2, before they
// talk to any cluster.
func TestFamiliesUsage(t *testing.T) {
	clusters := []string{"--source", "127.0.0.1:1:/hbase", "--source-hdfs", "hdfs://127.0.0.1:1/hbase",
		"--target", "127.0.0.1:2:/hbase", "--target-hdfs", "hdfs://127.0.0.1:2/hbase", "--table", "t"}
	for _, tc := range []struct{ cmd, fams, want string }{
		{"copy", ",", `--families ",": name 1 of 2 is empty`},
		{"copy", "a,,b", `--families "a,,b": name 2 of 3 is empty`},
		{"verify", "a,", `--families "a,": name 2 of 2 is empty`},
	} {
		var out, errb bytes.Buffer
		code := run(t.Context(), append(append([]string{tc.cmd}, clusters...), "--families", tc.fams), &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s --families %q: exit %d, %q; want %d and %q", tc.cmd, tc.fams, code, errb.String(), exitUsage, tc.want)
		}
	}
}
