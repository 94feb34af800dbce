package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
)

// newRootCommand builds the command tree; help and the version go to
// stdout, usage errors to stderr.
func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "rangecopy <command>",
		Short: "copy a key range of an HBase table to another cluster, online, without MapReduce",
		Long: `rangecopy copies a key range (and time range) of an HBase table from one
cluster to another, online and without MapReduce: it reads the source's HFiles
from its HDFS, writes HFiles for the target's regions into the target's HDFS
and bulk loads them.

"rangecopy copy" runs a whole copy in one process; "rangecopy verify" compares
the two tables from their HFiles. For long relocations run a
few "rangecopy master" and many "rangecopy worker" processes, submit jobs
with "rangecopy copy --detach" and follow them with "rangecopy job".`,
		Version:       version,
		Args:          cobra.ArbitraryArgs,
		RunE:          needSubcommand("command"),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// One usage line, the command's own: "rangecopy job <action> [flags]".
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(),
		"{{if .Runnable}}\n  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}\n  {{.CommandPath}} [command]{{end}}",
		"\n  {{.UseLine}}", 1))
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.Flags().Bool("version", false, "print the version of this binary")
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(newCopyCommand(), newVerifyCommand(), newMasterCommand(), newWorkerCommand(), newJobCommand(), newServerCommand(), newTokenCommand(), newRelocationCommand(), newClusterCommand(),
		newHFileCommand(), newVersionCommand(), newDocsCommand(), newOpenAPICommand())
	return root
}

// needSubcommand is the RunE of a command that only holds subcommands:
// called without one it shows its usage; called with an unknown one it says
// which are known. what names a subcommand ("command", "job action").
func needSubcommand(what string) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		var known []string
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && sub.Name() != "completion" {
				known = append(known, sub.Name())
			}
		}
		want := "want " + strings.Join(known, ", ")
		if len(known) > 1 {
			want = "want one of " + strings.Join(known, ", ")
		}
		if len(args) == 0 {
			fmt.Fprint(c.ErrOrStderr(), c.UsageString())
			return usageErrorf("missing %s: %s", what, want)
		}
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2
		}
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			want = "did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageErrorf("unknown %s %q: %s", what, args[0], want)
	}
}

// noArgs refuses positional arguments, naming them.
func noArgs(c *cobra.Command, args []string) error {
	switch len(args) {
	case 0:
		return nil
	case 1:
		return usageErrorf("unexpected argument %q: %s takes no arguments", args[0], commandName(c))
	}
	return usageErrorf("unexpected arguments %q: %s takes no arguments", args, commandName(c))
}

// commandName is c's path without the binary's name: "job status".
func commandName(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// versionLine is what "rangecopy version" prints.
func versionLine() string {
	return fmt.Sprintf("rangecopy %s (%s %s/%s)", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
