// Package rowkey writes and reads row keys as HBase's shell and logs show
// them: printable bytes as they are, every other byte as \xNN. It imports
// nothing of ours, so every package, the HBase client included, can use it.
package rowkey

import (
	"fmt"
	"strings"
)

// Parse turns a row key as an operator writes it into bytes. It takes the
// escapes of the HBase shell and of HBase's Bytes.toStringBinary: \xNN (two
// hex digits, either case) stands for one byte, and \\ for a backslash. Any
// other backslash is an error that names its position, so a key copied with a
// lost escape is refused rather than silently misread.
func Parse(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if i+3 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') {
			hi, ok1 := unhex(s[i+2])
			lo, ok2 := unhex(s[i+3])
			if ok1 && ok2 {
				out = append(out, hi<<4|lo)
				i += 3
				continue
			}
		}
		end := min(i+4, len(s))
		return nil, fmt.Errorf("key %q: bad escape %q at byte %d: want \\xNN with two hex digits, or \\\\", s, s[i:end], i)
	}
	return out, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Format writes a key the way HBase's Bytes.toStringBinary does, so keys in
// our logs and reports read like those in HBase's shell and logs: letters,
// digits and most ASCII punctuation as they are, every other byte (the
// backslash among them) as \xNN with upper-case hex. Parse reads it back.
func Format(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	const hex = "0123456789ABCDEF"
	for _, c := range b {
		if printable(c) {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString(`\x`)
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&0xF])
	}
	return sb.String()
}

// printable mirrors the characters Bytes.toStringBinary leaves as they are.
func printable(c byte) bool {
	switch {
	case '0' <= c && c <= '9', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		return true
	}
	return strings.IndexByte(" `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?", c) >= 0
}
