package hfile

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of them together
// with the file name and, where it applies, the offset of the offending block.
var (
	// ErrFormat reports bytes that do not form a valid HFile.
	ErrFormat = errors.New("hfile: invalid format")
	// ErrChecksum reports a block whose stored checksum does not match its bytes.
	ErrChecksum = errors.New("hfile: checksum mismatch")
	// ErrUnsupported reports a valid file that uses a feature this package lacks.
	ErrUnsupported = errors.New("hfile: unsupported feature")
)

// formatError wraps ErrFormat with a message.
func formatError(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrFormat)
}

// unsupportedError wraps ErrUnsupported with a message.
func unsupportedError(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrUnsupported)
}
