package job

import "rangecopy/rowkey"

// ParseKey turns a row key as an operator writes it (the HBase shell's \xNN
// escapes) into bytes; see rowkey.Parse.
func ParseKey(s string) ([]byte, error) { return rowkey.Parse(s) }

// FormatKey writes a key as HBase's shell and logs show it; see
// rowkey.Format.
func FormatKey(b []byte) string { return rowkey.Format(b) }
