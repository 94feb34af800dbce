package main

import "testing"

func TestHeapLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int64
		env    string
		want   int64
		ok     bool
	}{
		{"default budget", 512 << 20, "", 512<<20 + HeapHeadroom, true},
		{"small budget", 32 << 20, "", 32<<20 + HeapHeadroom, true},
		{"GOMEMLIMIT set wins", 512 << 20, "1GiB", 0, false},
		{"GOMEMLIMIT off wins", 512 << 20, "off", 0, false},
		{"no budget", 0, "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := heapLimit(tc.budget, tc.env)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("heapLimit(%d, %q) = %d, %v; want %d, %v", tc.budget, tc.env, got, ok, tc.want, tc.ok)
			}
		})
	}
}
