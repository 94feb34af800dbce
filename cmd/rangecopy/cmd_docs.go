package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newDocsCommand is the hidden command that writes the markdown reference
// of every command (docs/cli, by go generate ./cmd/rangecopy).
func newDocsCommand() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:    "docs --out <folder>",
		Short:  "write the markdown reference of every command into a folder",
		Hidden: true,
		Args:   noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if out == "" {
				return usageErrorf("--out is required: the folder to write the reference into")
			}
			return writeDocs(c.Root(), out)
		},
	}
	c.Flags().StringVar(&out, "out", "", "folder to write the markdown files into (created if missing)")
	_ = c.MarkFlagDirname("out")
	return c
}

// writeDocs writes one markdown file per command of root into dir, without
// the generation date, so the files change only when the commands do.
func writeDocs(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("docs folder: %w", err)
	}
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var visit func(*cobra.Command)
	visit = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("write the command reference into %s: %w", dir, err)
	}
	return nil
}
