package registry

import (
	"strings"
	"testing"
)

func TestProcessID(t *testing.T) {
	for _, prefix := range []string{"worker", "master", "copy", strings.Repeat("p", MaxIDLen)} {
		id := ProcessID(prefix)
		if err := ValidateID(id); err != nil {
			t.Errorf("ProcessID(%.10q) = %q: %v", prefix, id, err)
		}
	}
	if a := ProcessID("worker"); !strings.HasPrefix(a, "worker-") {
		t.Errorf("ProcessID(worker) = %q", a)
	}
}
