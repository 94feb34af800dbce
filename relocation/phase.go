package relocation

// Phase is where a relocation is in its life.
type Phase string

// The phases of a relocation.
const (
	// Copying: the full copy of every table in scope runs.
	Copying Phase = "copying"
	// CatchingUp: windows run on the schedule; the cut-over gates do not all hold.
	CatchingUp Phase = "catching-up"
	// Ready: windows run on the schedule and the cut-over gates hold.
	Ready Phase = "ready"
	// CuttingOver: the final window, then the verification of the whole scope with repair.
	CuttingOver Phase = "cutting-over"
	// Done: the cut-over verified the target equal to the source.
	Done Phase = "done"
	// Paused: an operator paused it; it returns to the phase it was in.
	Paused Phase = "paused"
	// Failed: it cannot go on; State.Why says why.
	Failed Phase = "failed"
	// Cancelled: an operator cancelled it.
	Cancelled Phase = "cancelled"
)

// Phases lists every phase, in the order of a relocation's life.
var Phases = []Phase{Copying, CatchingUp, Ready, CuttingOver, Done, Paused, Failed, Cancelled}

// String returns the phase's name.
func (p Phase) String() string { return string(p) }

// Valid reports whether p is one of Phases.
func (p Phase) Valid() bool {
	for _, v := range Phases {
		if p == v {
			return true
		}
	}
	return false
}

// Final reports whether a relocation in phase p has ended.
func (p Phase) Final() bool { return p == Done || p == Failed || p == Cancelled }

// Kind is what a window is for.
type Kind string

// The kinds of window.
const (
	// Full is the full copy: every cell of the scope, without a time range.
	Full Kind = "full"
	// CatchUp is a scheduled window: [watermark − margin, snapshot time).
	CatchUp Kind = "catch-up"
	// Final is the cut-over's last window.
	Final Kind = "final"
)

// String returns the kind's name.
func (k Kind) String() string { return string(k) }

// Outcome is how a window ended.
type Outcome string

// The outcomes of a window.
const (
	// Running: its jobs have not all ended.
	Running Outcome = "running"
	// Ran: every job of it is done.
	Ran Outcome = "ran"
	// Skipped: its tick found the window before it running; it copied nothing.
	Skipped Outcome = "skipped"
	// WindowFailed: a job of it failed or was cancelled; the next window covers its range.
	WindowFailed Outcome = "failed"
)

// String returns the outcome's name.
func (o Outcome) String() string { return string(o) }
