package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"rangecopy/server"
)

// newOpenAPICommand is the hidden command that writes the REST API's OpenAPI document, as
// every server serves it (api/openapi.yaml, by go generate ./api).
func newOpenAPICommand() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:    "openapi --out <file>",
		Short:  "write the OpenAPI document of the REST API into a file",
		Hidden: true,
		Args:   noArgs,
		RunE: func(*cobra.Command, []string) error {
			if out == "" {
				return usageErrorf("--out is required: the file to write the document into")
			}
			return writeOpenAPI(out)
		},
	}
	c.Flags().StringVar(&out, "out", "", "file to write the OpenAPI document (YAML) into")
	_ = c.MarkFlagFilename("out", "yaml")
	return c
}

// writeOpenAPI writes the REST API's OpenAPI document into file.
func writeOpenAPI(file string) error {
	b, err := server.OpenAPI()
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return fmt.Errorf("write the OpenAPI document: %w", err)
	}
	return nil
}
