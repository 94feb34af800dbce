package throttle

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"rangecopy/job"
)

const mb = 1 << 20

// step is one interval of a scripted run: the probes sent during it (all
// with one latency, spread over the interval), the rate measured, and what
// the tick at its end must decide.
type step struct {
	probes   int
	latency  time.Duration
	measured float64
	action   Action
	rate     float64
}

func ms1(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestControllerDecisions(t *testing.T) {
	lat20 := job.Protect{Latency: 20 * time.Millisecond}
	cases := []struct {
		name  string
		cfg   Config
		idle  time.Duration
		steps []step
		// after the last step:
		idleWant, targetWant time.Duration
		decreases            int64
	}{
		{
			name: "a latency target starts at no limit and holds while under it",
			cfg:  Config{Target: lat20},
			steps: []step{
				{probes: 10, latency: ms1(5), measured: 50 * mb, action: Hold, rate: 0},
				{probes: 10, latency: ms1(5), measured: 50 * mb, action: Hold, rate: 0},
			},
			targetWant: 20 * time.Millisecond,
		},
		{
			name: "one window above the target holds, the second in a row cuts from the measured rate",
			cfg:  Config{Target: lat20},
			steps: []step{
				{probes: 10, latency: ms1(30), measured: 100 * mb, action: Hold, rate: 0},
				{probes: 10, latency: ms1(30), measured: 100 * mb, action: Decrease, rate: 70 * mb},
			},
			targetWant: 20 * time.Millisecond, decreases: 1,
		},
		{
			name: "a breach between calm windows does not cut (no oscillation on noise)",
			cfg:  Config{Target: lat20},
			steps: []step{
				{probes: 10, latency: ms1(30), measured: 100 * mb, action: Hold, rate: 0},
				{probes: 10, latency: ms1(5), measured: 100 * mb, action: Hold, rate: 0},
				{probes: 10, latency: ms1(30), measured: 100 * mb, action: Hold, rate: 0},
				{probes: 10, latency: ms1(5), measured: 100 * mb, action: Hold, rate: 0},
			},
			targetWant: 20 * time.Millisecond,
		},
		{
			name: "a p99 between the hysteresis bound and the target holds a limited rate",
			cfg:  Config{Target: lat20, Ceiling: 100 * mb, Breaches: 1},
			steps: []step{
				{probes: 10, latency: ms1(25), measured: 100 * mb, action: Decrease, rate: 70 * mb},
				{probes: 10, latency: ms1(18), measured: 70 * mb, action: Hold, rate: 70 * mb},
				{probes: 10, latency: ms1(18), measured: 70 * mb, action: Hold, rate: 70 * mb},
				{probes: 10, latency: ms1(18), measured: 70 * mb, action: Hold, rate: 70 * mb},
			},
			targetWant: 20 * time.Millisecond, decreases: 1,
		},
		{
			name: "the rate rises by a step of the ceiling after calm windows in a row, up to the ceiling",
			cfg:  Config{Target: lat20, Ceiling: 100 * mb, Breaches: 1, Step: 0.2},
			steps: []step{
				{probes: 10, latency: ms1(25), measured: 100 * mb, action: Decrease, rate: 70 * mb},
				{probes: 10, latency: ms1(5), measured: 70 * mb, action: Hold, rate: 70 * mb},
				{probes: 10, latency: ms1(5), measured: 70 * mb, action: Increase, rate: 90 * mb},
				{probes: 10, latency: ms1(5), measured: 90 * mb, action: Hold, rate: 90 * mb},
				{probes: 10, latency: ms1(5), measured: 90 * mb, action: Increase, rate: 100 * mb},
				{probes: 10, latency: ms1(5), measured: 100 * mb, action: Hold, rate: 100 * mb},
				{probes: 10, latency: ms1(5), measured: 100 * mb, action: Hold, rate: 100 * mb},
			},
			targetWant: 20 * time.Millisecond, decreases: 1,
		},
		{
			name: "without a ceiling the rate rises by a step of the peak and the limit is lifted above 1.5 × the peak",
			cfg:  Config{Target: lat20, Breaches: 1, Calm: 1, Step: 0.5},
			steps: []step{
				{probes: 10, latency: ms1(25), measured: 100 * mb, action: Decrease, rate: 70 * mb},
				{probes: 10, latency: ms1(5), measured: 70 * mb, action: Increase, rate: 120 * mb},
				{probes: 10, latency: ms1(5), measured: 100 * mb, action: Increase, rate: 0},
				{probes: 10, latency: ms1(5), measured: 100 * mb, action: Hold, rate: 0},
			},
			targetWant: 20 * time.Millisecond, decreases: 1,
		},
		{
			name: "cuts stop at the floor",
			cfg:  Config{Target: lat20, Ceiling: 4 * mb, Floor: 2 * mb, Breaches: 1},
			steps: []step{
				{probes: 10, latency: ms1(50), measured: 4 * mb, action: Decrease, rate: 2.8 * mb},
				{probes: 10, latency: ms1(50), measured: 2.8 * mb, action: Decrease, rate: 2 * mb},
				{probes: 10, latency: ms1(50), measured: 2 * mb, action: Decrease, rate: 2 * mb},
			},
			targetWant: 20 * time.Millisecond, decreases: 3,
		},
		{
			name: "too few probes in a window hold the rate",
			cfg:  Config{Target: lat20, Breaches: 1},
			steps: []step{
				{probes: 3, latency: ms1(50), measured: 100 * mb, action: Hold, rate: 0},
				{probes: 3, latency: ms1(50), measured: 100 * mb, action: Hold, rate: 0},
			},
			targetWant: 20 * time.Millisecond,
		},
		{
			name: "a factor target learns the idle p99 at the floor first, then runs at the ceiling",
			cfg:  Config{Target: job.Protect{Factor: 2}, Ceiling: 50 * mb, WarmUp: 4 * time.Second},
			steps: []step{
				{probes: 10, latency: ms1(4), action: Warm, rate: DefaultFloor},
				{probes: 10, latency: ms1(4), action: Hold, rate: 50 * mb},
				{probes: 10, latency: ms1(6), measured: 50 * mb, action: Hold, rate: 50 * mb},
			},
			idleWant: ms1(4), targetWant: ms1(8),
		},
		{
			name: "a learned target lies at least MinSlack above a tiny idle p99",
			cfg:  Config{Target: job.Protect{Factor: 2}, WarmUp: 3 * time.Second},
			steps: []step{
				{probes: 10, latency: ms1(0.3), action: Warm, rate: DefaultFloor},
				{probes: 10, latency: ms1(0.3), action: Hold, rate: 0},
			},
			idleWant: ms1(0.3), targetWant: ms1(2.3),
		},
		{
			name: "an idle p99 known from before skips the warm-up",
			cfg:  Config{Target: job.Protect{Factor: 3}, Breaches: 1},
			idle: ms1(5),
			steps: []step{
				{probes: 10, latency: ms1(20), measured: 10 * mb, action: Decrease, rate: 7 * mb},
			},
			idleWant: ms1(5), targetWant: ms1(15), decreases: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewController(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			c.SetIdle(tc.idle)
			now := time.Unix(1_700_000_000, 0)
			const interval = 2 * time.Second
			for i, s := range tc.steps {
				for k := 0; k < s.probes; k++ {
					c.Observe(Sample{At: now.Add(time.Duration(k) * interval / time.Duration(s.probes)), Latency: s.latency})
				}
				now = now.Add(interval)
				d := c.Tick(now, s.measured)
				if d.Action != s.action || d.Rate != s.rate {
					t.Fatalf("step %d: %v at %.2f MiB/s, want %v at %.2f MiB/s (p99 %v of %d)", i, d.Action, d.Rate/mb, s.action, s.rate/mb, d.P99, d.Samples)
				}
			}
			st := c.Status()
			if st.Idle != tc.idleWant || st.Target != tc.targetWant || st.Decreases != tc.decreases {
				t.Fatalf("status %+v: want idle %v, target %v, %d decreases", st, tc.idleWant, tc.targetWant, tc.decreases)
			}
			if want := int64(0); st.Errors != want {
				t.Fatalf("errors %d", st.Errors)
			}
		})
	}
}

func TestControllerWindow(t *testing.T) {
	c, err := NewController(Config{Target: job.Protect{Latency: 10 * time.Millisecond}, Breaches: 1, Window: 4 * time.Second, MinSamples: 2})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0)
	// Slow probes long ago fall out of the window: no cut.
	c.Observe(Sample{At: t0, Latency: time.Second, Err: true})
	c.Observe(Sample{At: t0.Add(time.Second), Latency: time.Second, Err: true})
	for k := 0; k < 4; k++ {
		c.Observe(Sample{At: t0.Add(10*time.Second + time.Duration(k)*time.Second), Latency: time.Millisecond})
	}
	if d := c.Tick(t0.Add(14*time.Second), 10*mb); d.Action != Hold || d.Samples != 4 || d.P99 != time.Millisecond {
		t.Fatalf("old probes counted: %+v", d)
	}
	// After a cut only the probes since count.
	c.Observe(Sample{At: t0.Add(15 * time.Second), Latency: time.Second})
	c.Observe(Sample{At: t0.Add(15 * time.Second), Latency: time.Second})
	if d := c.Tick(t0.Add(16*time.Second), 10*mb); d.Action != Decrease || d.Rate != 7*mb {
		t.Fatalf("no cut: %+v", d)
	}
	if d := c.Tick(t0.Add(17*time.Second), 7*mb); d.Action != Hold || d.Samples != 0 {
		t.Fatalf("probes before the cut counted: %+v", d)
	}
	if st := c.Status(); st.Probes != 8 || st.Errors != 2 {
		t.Fatalf("status %+v", st)
	}
}

func TestNewControllerRefuses(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Target: job.Protect{Factor: 0.5}},
		{Target: job.Protect{Factor: 2, Latency: time.Millisecond}},
		{Target: job.Protect{Latency: time.Millisecond}, Decrease: 1.5},
	} {
		if _, err := NewController(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

func TestKeyIn(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		start, end []byte
		narrow     bool // the same first 8 bytes: only start can be drawn
	}{
		{nil, nil, false},
		{nil, []byte("m"), false},
		{[]byte("m"), nil, false},
		{[]byte("row-0100"), []byte("row-0200"), false},
		{[]byte("a\x00\x00\x00\x00\x00\x00\x00\x01"), []byte("a\x00\x00\x00\x00\x00\x00\x00\x02"), true},
		{[]byte("\xff\xff\xff\xff\xff\xff\xff\xff\x01"), nil, true},
	} {
		seen := map[string]bool{}
		for range 200 {
			k := KeyIn(c.start, c.end, r)
			if bytes.Compare(k, c.start) < 0 || len(c.end) > 0 && bytes.Compare(k, c.end) >= 0 {
				t.Fatalf("KeyIn(%q, %q) = %q: outside the range", c.start, c.end, k)
			}
			seen[string(k)] = true
		}
		if !c.narrow && len(seen) < 150 {
			t.Errorf("KeyIn(%q, %q): %d distinct keys of 200; want them spread", c.start, c.end, len(seen))
		}
		if c.narrow && (len(seen) != 1 || !seen[string(c.start)]) {
			t.Errorf("KeyIn(%q, %q) drew %d keys; want only the start", c.start, c.end, len(seen))
		}
	}
}

func TestByServer(t *testing.T) {
	pts := []Point{{Server: "b", Region: "1"}, {Server: "a", Region: "2"}, {Server: "b", Region: "3"}}
	got := byServer(pts)
	if len(got) != 2 || len(got[0]) != 2 || got[0][0].Region != "1" || got[0][1].Region != "3" || len(got[1]) != 1 || got[1][0].Region != "2" {
		t.Fatalf("byServer = %+v", got)
	}
}
