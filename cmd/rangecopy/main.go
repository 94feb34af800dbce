// Command rangecopy copies a key range of an HBase table from one cluster to
// another, online and without MapReduce.
//
// Usage:
//
//	rangecopy <command> [flags]
//
// Run "rangecopy help" for the list of commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is the release this binary was built from; the Makefile sets it
// with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes, mapped once here.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// errUsage marks an error caused by how the command was called.
var errUsage = errors.New("usage")

// command is one subcommand of the binary.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{name: "copy", summary: "copy a key range (and time range) of a table to another cluster", run: runCopyCommand},
		{name: "master", summary: "run a master: lead detached jobs through ZooKeeper (several may run)", run: runMaster},
		{name: "worker", summary: "run a worker: run tasks of detached jobs through ZooKeeper", run: runWorker},
		{name: "job", summary: "status, list, cancel, pause, resume or wait for jobs in the registry", run: runJob},
		{name: "hfile", summary: "inspect an HFile: trailer, file info, index, blocks, checks", run: runHFile},
		{name: "version", summary: "print the version of this binary", run: runVersion},
		{name: "help", summary: "show this help, or the help of a command", run: nil},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args to a command and maps its error to an exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name != name || c.run == nil {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "rangecopy %s: %v\n", name, err)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "rangecopy %s: %v\n", name, err)
			return exitError
		}
	}
	fmt.Fprintf(stderr, "rangecopy: unknown command %q\n\n", name)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `rangecopy copies a key range of an HBase table from one cluster to another,
online and without MapReduce.

Usage:
  rangecopy <command> [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "rangecopy <command> --help" for the flags of a command.
`)
}
