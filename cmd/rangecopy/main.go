// Command rangecopy copies a key range of an HBase table from one cluster to
// another, online and without MapReduce.
//
// Usage:
//
//	rangecopy <command> [flags]
//
// Run "rangecopy help" for the list of commands; docs/cli holds the
// reference of every command, generated from the commands themselves.
package main

//go:generate go run . docs --out ../../docs/cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	// The image is FROM scratch, with no zoneinfo: relocation schedules such as
	// "CRON_TZ=Europe/Berlin 0 2 * * *" load their zone from the copy embedded here.
	_ "time/tzdata"
)

// version is the release this binary was built from; the Makefile sets it
// with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes, mapped once here.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed (or found a damaged file)
	exitUsage = 2 // the command line was wrong; nothing was done
	// exitDifferent: rangecopy verify ran and found the tables different.
	exitDifferent = 3
)

// errUsage marks an error caused by how the command was called; errors.Is
// finds it in every usageError.
var errUsage = errors.New("usage")

// usageError is an error in how a command was called. Its message is the
// cause alone; run adds where to find the usage.
type usageError struct{ err error }

func (e usageError) Error() string        { return e.err.Error() }
func (e usageError) Unwrap() error        { return e.err }
func (e usageError) Is(target error) bool { return target == errUsage }

// usageErrorf makes a usageError; the message names what was wrong.
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command args name and maps its error to an exit code: the
// error goes to stderr after the command's name, and a usage error says
// where the command's help is.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	root.SetArgs(goStyleFlags(root, args))
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	name := root.Name()
	if cmd != nil {
		name = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	if errors.Is(err, errDifferent) {
		return exitDifferent
	}
	if errors.Is(err, errUsage) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		return exitUsage
	}
	return exitError
}
