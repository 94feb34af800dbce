package apiclient

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxEventBytes bounds one Server-Sent Event (its lines together): a stream that sends a
// longer one is refused rather than buffered without end.
const MaxEventBytes = 1 << 20

// ErrEventTooLong is the error of a stream whose event, or line, exceeds MaxEventBytes.
var ErrEventTooLong = errors.New("event stream: event longer than 1 MiB")

// RawEvent is one event of a text/event-stream, as the format defines it: its type (empty
// means "message"), its data lines joined with "\n", the last event id seen and a retry
// hint in milliseconds (0 when none was sent).
type RawEvent struct {
	Type  string
	Data  string
	ID    string
	Retry int
}

// eventReader parses a text/event-stream (the WHATWG HTML Server-Sent Events format): lines
// end in CRLF, LF or CR; a blank line ends an event; a line starting with ':' is a comment;
// field "name: value" with one optional space after the colon; unknown fields are ignored;
// an event without data is not dispatched. It reads untrusted bytes, so it bounds what it
// holds.
type eventReader struct {
	sc     *bufio.Scanner
	lastID string
	first  bool
}

func newEventReader(r io.Reader) *eventReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxEventBytes)
	sc.Split(scanLines)
	return &eventReader{sc: sc, first: true}
}

// scanLines is a bufio.SplitFunc for the format's line endings: CRLF, LF or a lone CR.
func scanLines(data []byte, atEOF bool) (int, []byte, error) {
	i := bytes.IndexAny(data, "\r\n")
	if i < 0 {
		if atEOF && len(data) > 0 {
			// A last line without its end: the format drops an event that was not ended,
			// so the caller sees it only as a line before EOF.
			return len(data), data, nil
		}
		return 0, nil, nil
	}
	if data[i] == '\n' {
		return i + 1, data[:i], nil
	}
	// A CR: one line ending with the LF that may follow it.
	if i+1 < len(data) {
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		return i + 1, data[:i], nil
	}
	return 0, nil, nil // wait to see whether an LF follows
}

// next returns the next complete event; io.EOF when the stream ended (an event cut off by
// the end is dropped, as the format says).
func (r *eventReader) next() (RawEvent, error) {
	var ev RawEvent
	var data bytes.Buffer
	hasData := false
	size := 0
	for r.sc.Scan() {
		line := r.sc.Bytes()
		if r.first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			r.first = false
		}
		if len(line) == 0 {
			if !hasData {
				ev, size = RawEvent{}, 0
				continue
			}
			ev.Data = data.String()
			ev.ID = r.lastID
			return ev, nil
		}
		if size += len(line) + 1; size > MaxEventBytes {
			return RawEvent{}, ErrEventTooLong
		}
		if line[0] == ':' {
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok {
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "event":
			ev.Type = string(value)
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.lastID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 && isDigits(value) {
				ev.Retry = n
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return RawEvent{}, ErrEventTooLong
		}
		return RawEvent{}, fmt.Errorf("event stream: %w", err)
	}
	return RawEvent{}, io.EOF
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
