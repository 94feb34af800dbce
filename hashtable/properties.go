package hashtable

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Property is one key and value of a Properties file.
type Property struct {
	Key, Value string
}

// WriteProperties writes props in the form java.util.Properties.store
// writes with a Writer: a "#" date line, then key=value lines, with the
// characters Properties.load treats specially escaped by a backslash and
// control characters as \uXXXX.
func WriteProperties(w io.Writer, props []Property, now time.Time) error {
	var b strings.Builder
	b.WriteString("#" + now.UTC().Format("Mon Jan 02 15:04:05 MST 2006") + "\n")
	for _, p := range props {
		escapeProperty(&b, p.Key, true)
		b.WriteByte('=')
		escapeProperty(&b, p.Value, false)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func escapeProperty(b *strings.Builder, s string, key bool) {
	for i, r := range s {
		switch r {
		case ' ':
			if i == 0 || key {
				b.WriteByte('\\')
			}
			b.WriteByte(' ')
		case '\\':
			b.WriteString(`\\`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			if r < 0x20 || r == 0x7f || r == utf8.RuneError {
				fmt.Fprintf(b, `\u%04X`, r)
				continue
			}
			if r > 0xffff {
				// Java's chars are UTF-16: a supplementary character is
				// a surrogate pair, which \u escapes write exactly.
				r -= 0x10000
				fmt.Fprintf(b, `\u%04X\u%04X`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
				continue
			}
			b.WriteRune(r)
		}
	}
}

// MaxPropertiesSize bounds the Properties files ReadProperties reads.
const MaxPropertiesSize = 1 << 20

// ReadProperties parses a Properties file as java.util.Properties.load
// reads one: natural lines ended by \n, \r or \r\n; comment lines starting
// with # or !; a line ending in an odd number of backslashes continued on
// the next (its leading blanks skipped); the key ended by the first
// unescaped '=', ':' or blank; escapes \t \n \r \f \uXXXX and \c for any
// other c. A later key replaces an earlier one. name names the file in
// errors.
func ReadProperties(data []byte, name string) (map[string]string, error) {
	if len(data) > MaxPropertiesSize {
		return nil, fmt.Errorf("%w: properties %s: %d bytes, at most %d", ErrFormat, name, len(data), MaxPropertiesSize)
	}
	out := map[string]string{}
	lines := logicalLines(data)
	for _, ln := range lines {
		key, value, err := splitProperty(ln.text)
		if err != nil {
			return nil, fmt.Errorf("%w: properties %s line %d: %v", ErrFormat, name, ln.number, err)
		}
		out[key] = value
	}
	return out, nil
}

type propLine struct {
	text   []byte
	number int
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// logicalLines joins continued natural lines and drops blank and comment
// lines.
func logicalLines(data []byte) []propLine {
	var out []propLine
	var cur []byte
	continuing := false
	start := 0
	n := 0
	for len(data) > 0 {
		n++
		i := bytes.IndexAny(data, "\r\n")
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line = data[:i]
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
		}
		j := 0
		for j < len(line) && isBlank(line[j]) {
			j++
		}
		line = line[j:]
		if !continuing {
			if len(line) == 0 || line[0] == '#' || line[0] == '!' {
				continue
			}
			cur, start = nil, n
		}
		slash := 0
		for k := len(line) - 1; k >= 0 && line[k] == '\\'; k-- {
			slash++
		}
		if slash%2 == 1 {
			cur = append(cur, line[:len(line)-1]...)
			continuing = true
			continue
		}
		cur = append(cur, line...)
		continuing = false
		out = append(out, propLine{text: cur, number: start})
	}
	if continuing {
		out = append(out, propLine{text: cur, number: start})
	}
	return out
}

// splitProperty splits one logical line into its key and value and
// unescapes both.
func splitProperty(ln []byte) (string, string, error) {
	i := 0
	for i < len(ln) {
		c := ln[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || isBlank(c) {
			break
		}
		i++
	}
	i = min(i, len(ln))
	keyEnd := i
	for i < len(ln) && isBlank(ln[i]) {
		i++
	}
	if i < len(ln) && (ln[i] == '=' || ln[i] == ':') {
		i++
	}
	for i < len(ln) && isBlank(ln[i]) {
		i++
	}
	key, err := unescapeProperty(ln[:keyEnd])
	if err != nil {
		return "", "", fmt.Errorf("key: %v", err)
	}
	value, err := unescapeProperty(ln[i:])
	if err != nil {
		return "", "", fmt.Errorf("value of %q: %v", key, err)
	}
	return key, value, nil
}

func unescapeProperty(s []byte) (string, error) {
	if !slices.Contains(s, '\\') {
		return string(s), nil
	}
	var units []uint16 // \u escapes are UTF-16 units
	var b strings.Builder
	flush := func() {
		if len(units) == 0 {
			return
		}
		for len(units) > 0 {
			u := rune(units[0])
			if u >= 0xd800 && u < 0xdc00 && len(units) > 1 && units[1] >= 0xdc00 && units[1] < 0xe000 {
				b.WriteRune(0x10000 + (u-0xd800)<<10 + rune(units[1]) - 0xdc00)
				units = units[2:]
				continue
			}
			b.WriteRune(u)
			units = units[1:]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			if c != '\\' {
				flush()
				b.WriteByte(c)
			}
			continue
		}
		i++
		c = s[i]
		if c == 'u' {
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx escape")
			}
			var v uint16
			for _, h := range s[i+1 : i+5] {
				var d byte
				switch {
				case h >= '0' && h <= '9':
					d = h - '0'
				case h >= 'a' && h <= 'f':
					d = h - 'a' + 10
				case h >= 'A' && h <= 'F':
					d = h - 'A' + 10
				default:
					return "", fmt.Errorf("malformed \\uxxxx escape")
				}
				v = v<<4 | uint16(d)
			}
			units = append(units, v)
			i += 4
			continue
		}
		flush()
		switch c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return b.String(), nil
}
