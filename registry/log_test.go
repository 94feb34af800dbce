package registry

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// logRecords is a slog handler that keeps every record, at every level.
type logRecords struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, r.Clone())
	return nil
}

// loggedLine is the part of a record the tests compare.
type loggedLine struct {
	level slog.Level
	msg   string
	why   string
}

// lines returns the records with message msg.
func (l *logRecords) lines(msg string) []loggedLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []loggedLine
	for _, r := range l.recs {
		if r.Message != msg {
			continue
		}
		line := loggedLine{level: r.Level, msg: r.Message}
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "why" {
				line.why = a.Value.String()
			}
			return true
		})
		out = append(out, line)
	}
	return out
}

// atLeast returns the messages of the records at level or above.
func (l *logRecords) atLeast(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.recs {
		if r.Level >= level {
			out = append(out, r.Level.String()+" "+r.Message)
		}
	}
	return out
}

// A session lost while the registry is open is logged as a warning; the end
// of the session by Close is logged at debug level only.
func TestSessionEndLogLevel(t *testing.T) {
	server, root := testZK(t)
	proxy := newZKProxy(t, server)
	logs := &logRecords{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Open(ctx, Config{Servers: []string{proxy.addr()}, Root: root, SessionTimeout: 10 * time.Second,
		Logger: slog.New(logs)})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(r.Close)

	expire(t, r, proxy)
	lost := logs.lines("zookeeper session lost")
	if want := []loggedLine{{slog.LevelWarn, "zookeeper session lost", "session expired"}}; len(lost) != 1 || lost[0] != want[0] {
		t.Errorf("after the session expired, logged %+v, want %+v", lost, want)
	}
	before := len(logs.atLeast(slog.LevelWarn))

	r.Close()
	if after := logs.atLeast(slog.LevelWarn); len(after) != before {
		t.Errorf("Close logged at warning level or above: %q", after[before:])
	}
	ended := logs.lines("zookeeper session ended")
	if want := (loggedLine{slog.LevelDebug, "zookeeper session ended", "registry closed"}); len(ended) != 1 || ended[0] != want {
		t.Errorf("Close logged %+v, want %+v", ended, want)
	}
}

// A registry opened and closed at once logs nothing at warning level.
func TestCloseLogsNoWarning(t *testing.T) {
	server, root := testZK(t)
	logs := &logRecords{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Open(ctx, Config{Servers: []string{server}, Root: root, Logger: slog.New(logs)})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	r.Close()
	if warned := logs.atLeast(slog.LevelWarn); len(warned) > 0 {
		t.Errorf("open and close logged %q, want nothing at warning level", warned)
	}
	if ended := logs.lines("zookeeper session ended"); len(ended) != 1 || ended[0].level != slog.LevelDebug {
		t.Errorf("Close logged %+v, want one debug line", ended)
	}
}
