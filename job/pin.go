package job

import "fmt"

// PinMode is how a job pins the source's inputs before it plans.
type PinMode string

const (
	// PinSnapshot takes a flush snapshot of the source table: its files
	// stay until the job ends, however long it takes. The zero value means
	// it too.
	PinSnapshot PinMode = "snapshot"
	// PinLive flushes the source's regions and reads the store files their
	// servers have open, without a snapshot (snapshot.PinLive): a second or
	// more quicker, for copies that read their inputs within minutes, as a
	// relocation's catch-up windows do. A file compacted away meanwhile is
	// read from the archive until the master's cleaner deletes it there
	// (hbase.master.hfilecleaner.ttl, 5 minutes by default), so a plan of
	// more than LiveMaxBytes takes a snapshot after all, as does a live pin
	// that does not settle.
	PinLive PinMode = "live"
)

// LiveMaxBytes is the largest plan a live pin is kept for: one that copies
// in about a minute at 20 MB/s, well inside the cleaner's TTL.
const LiveMaxBytes = 1 << 30

// ParsePinMode reads a pin mode as an operator types it; empty is
// PinSnapshot.
func ParsePinMode(s string) (PinMode, error) {
	switch PinMode(s) {
	case "", PinSnapshot:
		return PinSnapshot, nil
	case PinLive:
		return PinLive, nil
	}
	return "", fmt.Errorf("%q: want %q or %q", s, PinSnapshot, PinLive)
}

// Live reports whether m asks for a live pin.
func (m PinMode) Live() bool { return m == PinLive }

// pinWire is m as a record stores it: nothing for a snapshot, so that a
// record reads as before pin modes existed.
func pinWire(m PinMode) string {
	if m.Live() {
		return string(PinLive)
	}
	return ""
}
