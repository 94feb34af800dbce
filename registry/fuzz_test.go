package registry

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRecords feeds arbitrary bytes, as read from ZooKeeper, to every
// decoder: malformed input is an error, never a panic, and what decodes
// encodes to bytes that decode to the same record.
func FuzzRecords(f *testing.F) {
	f.Add(jobRecord{State: JobRunning, Message: "m", Spec: []byte("spec")}.encode())
	f.Add(claimRecord{Worker: "w-1", Session: 0x1000002a, Epoch: 3}.encode())
	f.Add(Result{Status: StatusFailed, Worker: "w", Message: "bad hfile"}.encode())
	f.Add(Worker{ID: "w", Capacity: 4, Info: "h"}.encode())
	f.Add(encodeBandwidth(50e6))
	f.Add([]byte{})
	f.Add([]byte{'J', 1, 1, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		if j, err := decodeJobRecord(b); err == nil {
			j2, err := decodeJobRecord(j.encode())
			if err != nil || j2.State != j.State || j2.Message != j.Message || !bytes.Equal(j2.Spec, j.Spec) {
				t.Errorf("job record %x: %+v then %+v, %v", b, j, j2, err)
			}
		}
		if c, err := decodeClaimRecord(b); err == nil {
			if c2, err := decodeClaimRecord(c.encode()); err != nil || c2 != c {
				t.Errorf("claim record %x: %+v then %+v, %v", b, c, c2, err)
			}
		}
		if r, err := decodeResult(b); err == nil {
			if r2, err := decodeResult(r.encode()); err != nil || r2 != r {
				t.Errorf("result %x: %+v then %+v, %v", b, r, r2, err)
			}
		}
		if v, err := decodeBandwidth(b); err == nil {
			if v2, err := decodeBandwidth(encodeBandwidth(v)); err != nil || v2 != v {
				t.Errorf("bandwidth %x: %d then %d, %v", b, v, v2, err)
			}
		}
		if w, err := decodeWorker("w", b); err == nil {
			if w2, err := decodeWorker("w", w.encode()); err != nil || w2 != w {
				t.Errorf("worker %x: %+v then %+v, %v", b, w, w2, err)
			}
		}
	})
}

// FuzzElectionNames feeds arbitrary children names of the election folder to
// the ordering: no panic, and only well-formed names, in sequence order.
func FuzzElectionNames(f *testing.F) {
	f.Add("_c_aa-n_0000000002\n_c_bb-n_0000000001\njunk\n-n_")
	f.Add("")
	f.Fuzz(func(t *testing.T, list string) {
		names := strings.Split(list, "\n")
		sorted := sortElection(names)
		for i, n := range sorted {
			if len(seqOf(n)) != 10 {
				t.Errorf("kept %q", n)
			}
			if i > 0 && seqOf(sorted[i-1]) > seqOf(n) {
				t.Errorf("out of order: %q before %q", sorted[i-1], n)
			}
			if _, leading, ok := predecessor(sorted, n); !ok || leading != (i == 0 || sorted[0] == n) {
				t.Errorf("predecessor(%q) = %v %v", n, leading, ok)
			}
		}
	})
}
