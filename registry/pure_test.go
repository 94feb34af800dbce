package registry

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

func TestBucketStableAndSpread(t *testing.T) {
	// Fixed values: the bucket of an id is part of the stored layout and must
	// never change between versions.
	for id, want := range map[string]int{"": 0xc5, "a": 0x2c, "0123abcd-000": 0x4c} {
		if got := Bucket(id); got != want {
			t.Errorf("Bucket(%q) = %d, want %d", id, got, want)
		}
	}
	counts := make([]int, Buckets)
	const n = 100000
	for i := 0; i < n; i++ {
		counts[Bucket(fmt.Sprintf("%032x-%03d", i*7919, i%1000))]++
	}
	for b, c := range counts {
		if c < n/Buckets/2 || c > n/Buckets*2 {
			t.Errorf("bucket %d holds %d of %d ids", b, c, n)
		}
	}
}

func TestValidateID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"0123456789abcdef0123456789abcdef-000", true},
		{"job_2026.11.29:a-B", true},
		{"", false},
		{".", false},
		{"..", false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
		{"x\x00", false},
		{"cand-n_0000000001", false},
		{strings.Repeat("a", MaxIDLen), true},
		{strings.Repeat("a", MaxIDLen+1), false},
	} {
		if err := ValidateID(tc.id); (err == nil) != tc.ok {
			t.Errorf("ValidateID(%q) = %v, want ok=%v", tc.id, err, tc.ok)
		}
	}
}

func TestValidateJobID(t *testing.T) {
	if err := ValidateJobID(strings.Repeat("j", MaxJobIDLen)); err != nil {
		t.Error(err)
	}
	if err := ValidateJobID(strings.Repeat("j", MaxJobIDLen+1)); err == nil {
		t.Error("long job id accepted")
	}
	if err := ValidateJobID("a/b"); err == nil {
		t.Error("bad job id accepted")
	}
}

func TestValidateRoot(t *testing.T) {
	for _, tc := range []struct {
		root string
		ok   bool
	}{
		{"/rangecopy", true},
		{"/rangecopy-test/x_1", true},
		{"", false},
		{"/", false},
		{"rangecopy", false},
		{"/rangecopy/", false},
		{"/a//b", false},
		{"/a/../b", false},
		{"/" + strings.Repeat("a", MaxRootLen-1), true},
		{"/" + strings.Repeat("a", MaxRootLen), false},
	} {
		if err := ValidateRoot(tc.root); (err == nil) != tc.ok {
			t.Errorf("ValidateRoot(%q) = %v, want ok=%v", tc.root, err, tc.ok)
		}
	}
}

func TestTransition(t *testing.T) {
	allowed := map[[2]JobState]bool{}
	for _, p := range [][2]JobState{
		{JobPending, JobPlanning}, {JobPending, JobCancelling}, {JobPending, JobCancelled}, {JobPending, JobFailed},
		{JobPlanning, JobRunning}, {JobPlanning, JobPaused}, {JobPlanning, JobCancelling}, {JobPlanning, JobFailed},
		{JobRunning, JobPaused}, {JobRunning, JobCancelling}, {JobRunning, JobDone}, {JobRunning, JobFailed},
		{JobPaused, JobRunning}, {JobPaused, JobPending}, {JobPaused, JobCancelling}, {JobPaused, JobFailed},
		{JobCancelling, JobCancelled}, {JobCancelling, JobFailed},
	} {
		allowed[p] = true
	}
	for from := JobPending; from <= JobCancelled; from++ {
		for to := JobPending; to <= JobCancelled; to++ {
			want := from == to || allowed[[2]JobState{from, to}]
			err := Transition(from, to)
			if (err == nil) != want {
				t.Errorf("Transition(%v, %v) = %v, want ok=%v", from, to, err, want)
			}
			if err != nil && !errors.Is(err, ErrTransition) {
				t.Errorf("Transition(%v, %v) = %v, not ErrTransition", from, to, err)
			}
			if from.Final() && from != to && err == nil {
				t.Errorf("final state %v moved to %v", from, to)
			}
		}
	}
	if err := Transition(0, JobRunning); !errors.Is(err, ErrTransition) {
		t.Errorf("Transition from zero state = %v", err)
	}
}

// TestResumeState: a job paused while it planned, before any task was
// registered, is planned again; one with tasks runs them. (Running with no
// task would finish the job at once, with nothing copied.)
func TestResumeState(t *testing.T) {
	for _, tc := range []struct {
		tasks int
		want  JobState
	}{{0, JobPending}, {1, JobRunning}, {100_000, JobRunning}} {
		if got := ResumeState(tc.tasks); got != tc.want {
			t.Errorf("ResumeState(%d) = %v, want %v", tc.tasks, got, tc.want)
		}
	}
}

func TestJobStateNames(t *testing.T) {
	for s := JobPending; s <= JobCancelled; s++ {
		got, err := ParseJobState(s.String())
		if err != nil || got != s {
			t.Errorf("ParseJobState(%q) = %v, %v", s.String(), got, err)
		}
	}
	if JobState(0).String() != "JobState(0)" || Status(9).String() != "Status(9)" {
		t.Errorf("unknown values print as %q, %q", JobState(0), Status(9))
	}
	if _, err := ParseJobState("running "); err == nil {
		t.Error("ParseJobState accepted a bad name")
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want Action
	}{
		{nil, ActionNone},
		{fmt.Errorf("save: %w", ErrLostClaim), ActionStop},
		{ErrSessionLost, ActionStop},
		{fmt.Errorf("x: %w", zk.ErrSessionExpired), ActionStop},
		{fmt.Errorf("x: %w", zk.ErrConnectionClosed), ActionRetry},
		{zk.ErrNoServer, ActionRetry},
		{fmt.Errorf("job j: %w", ErrConflict), ActionRetry},
		{ErrClaimed, ActionRetry},
		{ErrFinished, ActionGiveUp},
		{ErrNotFound, ActionGiveUp},
		{ErrTransition, ActionGiveUp},
		{ErrTooLarge, ActionGiveUp},
		{errors.New("other"), ActionGiveUp},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	j := jobRecord{State: JobPaused, Message: "operator: pause", Spec: []byte(`{"table":"t"}`)}
	gj, err := decodeJobRecord(j.encode())
	if err != nil || gj.State != j.State || gj.Message != j.Message || string(gj.Spec) != string(j.Spec) {
		t.Errorf("job record: %+v, %v", gj, err)
	}
	c := claimRecord{Worker: "w-1", Session: -0x7000000000000001, Epoch: 1<<31 - 1}
	if gc, err := decodeClaimRecord(c.encode()); err != nil || gc != c {
		t.Errorf("claim record: %+v, %v", gc, err)
	}
	res := Result{Status: StatusFailed, Worker: "w", Message: "boom"}
	if gr, err := decodeResult(res.encode()); err != nil || gr != res {
		t.Errorf("result: %+v, %v", gr, err)
	}
	w := Worker{ID: "w", Capacity: 8, Info: "host=a"}
	if gw, err := decodeWorker("w", w.encode()); err != nil || gw != w {
		t.Errorf("worker: %+v, %v", gw, err)
	}
}

func TestRecordsRefuseGarbage(t *testing.T) {
	bad := [][]byte{nil, {}, {'J'}, {'J', 2, 1, 0}, {'C', 1}, {'J', 1, 0, 0}, {'J', 1, 9, 0},
		append(claimRecord{Worker: "w"}.encode(), 0), {'R', 1, byte(StatusPending), 0, 0},
		{'J', 1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	for _, b := range bad {
		_, e1 := decodeJobRecord(b)
		_, e2 := decodeClaimRecord(b)
		_, e3 := decodeResult(b)
		_, e4 := decodeWorker("w", b)
		for _, err := range []error{e1, e2, e3, e4} {
			if err != nil && !errors.Is(err, ErrFormat) {
				t.Errorf("%x: error %v is not ErrFormat", b, err)
			}
		}
		if e2 == nil || e3 == nil || e4 == nil {
			t.Errorf("%x accepted: %v %v %v", b, e2, e3, e4)
		}
	}
}

func TestTruncateMessage(t *testing.T) {
	long := strings.Repeat("é", MaxMessage)
	got := truncateMessage(long)
	if len(got) > MaxMessage || !strings.HasSuffix(got, "(truncated)") {
		t.Errorf("truncated to %d bytes: ...%q", len(got), got[len(got)-20:])
	}
	if truncateMessage("short") != "short" {
		t.Error("short message changed")
	}
	// A failed task's error may hold a region name with binary bytes: the
	// message is made valid UTF-8, so the result can be read back.
	got = truncateMessage("load into region t,\x80\xff,1.abc.: failed")
	if got != `load into region t,\x80\xFF,1.abc.: failed` {
		t.Errorf("binary message written %q", got)
	}
	res, err := decodeResult(Result{Status: StatusFailed, Worker: "w", Message: got}.encode())
	if err != nil || res.Message != got {
		t.Errorf("result with the message read back as %+v, %v", res, err)
	}
}
