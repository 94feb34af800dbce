//go:build !unix

package server

import "testing"

// hangup skips: there is no SIGHUP to send here.
func hangup(t *testing.T) {
	t.Helper()
	t.Skip("no SIGHUP on this system")
}
