package catalog

import (
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"sqlite:///var/lib/rangecopy/catalog.db", true},
		{"postgres://rc:pw@db1:5432/rangecopy", true},
		{"mysql://rc:pw@db1/rangecopy", true},
		{"ftp://x", false},
		{"postgres://rc:pw@db1:99999/rangecopy", false},
		{"", false},
	} {
		if err := CheckURL(tc.url); (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q) = %v, want ok %v", tc.url, err, tc.ok)
		}
	}
	if got := RedactURL("postgres://rc:secret@db1/rangecopy"); strings.Contains(got, "secret") {
		t.Errorf("RedactURL shows the password: %s", got)
	}
}
