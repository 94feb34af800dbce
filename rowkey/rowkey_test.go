package rowkey

import (
	"bytes"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []byte
		err  string
	}{
		{in: "", want: []byte{}},
		{in: "row-1", want: []byte("row-1")},
		{in: `\x00`, want: []byte{0}},
		{in: `a\x00\xffb`, want: []byte{'a', 0, 0xff, 'b'}},
		{in: `\xAb\xcD`, want: []byte{0xab, 0xcd}},
		{in: `\X41`, want: []byte("A")},
		{in: `back\\slash`, want: []byte(`back\slash`)},
		{in: `\x5C`, want: []byte(`\`)},
		{in: `\x0`, err: `bad escape "\\x0" at byte 0`},
		{in: `ab\xg0`, err: `bad escape "\\xg0" at byte 2`},
		{in: `tail\`, err: `bad escape "\\" at byte 4`},
		{in: `\n`, err: `bad escape "\\n" at byte 0`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error = %v, want it to contain %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{nil, ""},
		{[]byte("row-0007"), "row-0007"},
		{[]byte{'r', 0, 0xff}, `r\x00\xFF`},
		{[]byte(`a\b`), `a\x5Cb`},
		{[]byte("tab\there"), `tab\x09here`},
		{[]byte(" ~!@#$%^&*()-_=+[]{}|;:'\",.<>/?`"), " ~!@#$%^&*()-_=+[]{}|;:'\",.<>/?`"},
	}
	for _, tt := range tests {
		if got := Format(tt.in); got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzKeyRoundTrip checks that every key survives FormatKey then ParseKey,
// and that ParseKey never panics.
func FuzzKeyRoundTrip(f *testing.F) {
	for _, s := range []string{"", "row", "\x00\xff", `\x41`, `\\`, `\`, `\x`, "a\\x0"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		back, err := Parse(Format(b))
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("Parse(Format(%q)) = %q, %v", b, back, err)
		}
		if k, err := Parse(string(b)); err == nil && bytes.Contains(b, []byte(`\`)) && len(k) >= len(b) {
			t.Fatalf("Parse(%q) = %q: an escape should shorten the key", b, k)
		}
	})
}
