//go:build unix

package server

import (
	"os"
	"syscall"
	"testing"
)

// hangup sends this process SIGHUP, as systemctl reload does to a server.
func hangup(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
}
