package testenv_test

import (
	"bytes"
	"os/exec"
	"testing"

	"rangecopy/testenv"
)

// TestMavenOutputHasNoEscapes: Maven run on the harness's build, as make, the scripts and
// the harness's builders run it, writes no ANSI escape into what is captured, on success
// or failure. Debian's Maven 3.8 writes two resets (ESC[0m) before its first line even in
// batch mode with style.color=never; testenv/.mvn/jvm.config turns them off.
func TestMavenOutputHasNoEscapes(t *testing.T) {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		if testenv.InCI() {
			t.Fatalf("mvn missing in CI: %v", err)
		}
		t.Skipf("skipped outside CI: %v", err)
	}
	for _, goal := range []string{"validate", "no-such-phase"} {
		out, _ := exec.CommandContext(t.Context(), mvn, "-q", "-o", "-f", "pom.xml", goal).CombinedOutput()
		if i := bytes.IndexByte(out, 0x1b); i >= 0 {
			t.Errorf("mvn %s writes an escape at byte %d: %q", goal, i, out[:min(len(out), i+40)])
		}
		if goal != "validate" && !bytes.Contains(out, []byte("[ERROR]")) {
			t.Errorf("mvn %s: no error written: %q", goal, out)
		}
	}
}
