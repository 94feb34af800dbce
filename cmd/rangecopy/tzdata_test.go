package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rangecopy/relocation"
)

// tzChildEnv marks the child process TestEmbeddedTZData starts.
const tzChildEnv = "RANGECOPY_TEST_TZ_CHILD"

// TestEmbeddedTZData: the binary carries its own zone database, so a CRON_TZ schedule
// parses where no zoneinfo is installed (the FROM scratch image). The check runs in a
// child process whose ZONEINFO is an empty folder (Go reads ZONEINFO once per process),
// and parses the schedule through relocation.ParseSchedule, the server's parser.
func TestEmbeddedTZData(t *testing.T) {
	if os.Getenv(tzChildEnv) != "" {
		loc, err := time.LoadLocation("Europe/Berlin")
		if err != nil {
			t.Fatalf("load Europe/Berlin with ZONEINFO=%s: %v", os.Getenv("ZONEINFO"), err)
		}
		s, err := relocation.ParseSchedule("CRON_TZ=Europe/Berlin 0 2 * * *")
		if err != nil {
			t.Fatal(err)
		}
		// 02:00 in Berlin on 1 July (summer time, UTC+2) is 00:00 UTC.
		next := s.Next(time.Date(2030, 7, 1, 0, 0, 0, 0, loc).Add(-time.Minute))
		if want := time.Date(2030, 7, 1, 0, 0, 0, 0, time.UTC); !next.Equal(want) {
			t.Fatalf("next run = %s, want %s", next.UTC(), want)
		}
		return
	}
	// The main package imports time/tzdata: on a host with /usr/share/zoneinfo the child
	// below would pass without it, so the import itself is checked too.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	embedded := false
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "time/tzdata" {
				embedded = true
			}
		}
	}
	if !embedded {
		t.Error(`package main does not import _ "time/tzdata": the FROM scratch image has no zones`)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestEmbeddedTZData$", "-test.count=1")
	cmd.Env = append(os.Environ(), tzChildEnv+"=1", "ZONEINFO="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child with an empty ZONEINFO: %v\n%s", err, out)
	}
}
