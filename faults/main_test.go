package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// rangecopyBin is the path of the rangecopy binary TestMain builds for the
// run: every process the tests start runs it.
var rangecopyBin string

// TestMain builds the rangecopy binary once into a temporary folder, runs
// the tests and removes the folder.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "rangecopy-faults-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "faults: temporary folder for the binary: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	rangecopyBin = filepath.Join(dir, "rangecopy")
	build := exec.Command("go", "build", "-o", rangecopyBin, "rangecopy/cmd/rangecopy")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "faults: go build rangecopy/cmd/rangecopy: %v\n", err)
		return 1
	}
	return m.Run()
}
