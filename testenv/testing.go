package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"testing"
)

// InCI reports whether the tests run in CI, where a missing environment is a
// failure and never a skip.
func InCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Get returns the running test environment. Without one, it fails the test
// in CI and skips it elsewhere, saying how to start it.
func Get(t testing.TB) *Env {
	t.Helper()
	dir, err := DefaultDir()
	var env *Env
	if err == nil {
		env, err = Load(dir)
	}
	if err != nil {
		if InCI() {
			t.Fatalf("test environment missing in CI: %v", err)
		}
		t.Skipf("skipped outside CI: test environment missing (start it with make testenv-up): %v", err)
	}
	return env
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// UniqueName returns a name no other test uses: the prefix, the test's name
// and a random suffix, restricted to characters valid in HBase table names
// and HDFS paths.
func UniqueName(t testing.TB, prefix string) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("random name: %v", err)
	}
	name := unsafeName.ReplaceAllString(prefix+"_"+t.Name(), "_")
	if len(name) > 60 {
		name = name[:60]
	}
	return strings.Trim(name, "_") + "_" + hex.EncodeToString(b[:])
}
