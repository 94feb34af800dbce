package verify

import "fmt"

// Mode is what of each side verify compares.
type Mode int

const (
	// ModeVisible compares what a read of every version (not raw) returns
	// as of the snapshots: delete markers applied, versions capped by each
	// family's VERSIONS, TTL honoured. It stays valid after either side
	// compacts.
	ModeVisible Mode = iota + 1
	// ModeRaw compares every cell and delete marker, one per key.
	ModeRaw
)

// String names the mode as the command line takes it.
func (m Mode) String() string {
	switch m {
	case ModeVisible:
		return "visible"
	case ModeRaw:
		return "raw"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads "visible" or "raw".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "visible", "":
		return ModeVisible, nil
	case "raw":
		return ModeRaw, nil
	}
	return 0, fmt.Errorf("mode %q: want visible or raw", s)
}

// MarshalText writes the mode's name, for JSON.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the mode's name.
func (m *Mode) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("mode: empty")
	}
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
