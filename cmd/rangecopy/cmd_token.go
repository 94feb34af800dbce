package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"rangecopy/catalog"
)

// catalogFlags name the catalog a command works on directly: --catalog, or the SQLite file
// in --data-dir that rangecopy server defaults to.
type catalogFlags struct {
	url, dataDir string
}

func (c *catalogFlags) add(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&c.url, "catalog", "", "catalog URL, as rangecopy server's --catalog (default <data-dir>/catalog.db)")
	fs.StringVar(&c.dataDir, "data-dir", defaultDataDir(), "the server's data folder, for its default SQLite catalog")
}

// open opens the catalog (migrating it if it is older).
func (c catalogFlags) open(ctx context.Context) (*catalog.Catalog, error) {
	url := c.url
	if url == "" {
		path := filepath.Join(c.dataDir, "catalog.db")
		if _, err := os.Stat(path); err != nil {
			return nil, usageErrorf("no catalog at %s: give --catalog, or the --data-dir of rangecopy server", path)
		}
		url = "sqlite://" + path
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return catalog.Open(octx, url, catalog.Options{})
}

func newTokenCommand() *cobra.Command {
	var f catalogFlags
	var jsonOut bool
	c := &cobra.Command{
		Use:   "token <action>",
		Short: "create, list or revoke the API's bearer tokens, in the catalog",
		Long: `Manages the bearer tokens of rangecopy server's API directly in its catalog
(the server need not run). Roles: viewer (read), operator (also submit, pause,
resume, cancel), admin (also clusters and tokens). A secret is shown once, when
it is created; the catalog keeps its SHA-256. --catalog and --data-dir may also
be set as $RANGECOPY_CATALOG and $RANGECOPY_DATA_DIR, as for rangecopy server.`,
		Example: `  rangecopy token create --name ci --role operator
  rangecopy token list --catalog postgres://rc:secret@db1/rangecopy
  rangecopy token revoke tok_3f0c2a9d1b7e4c55`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand("token action"),
		// --catalog and --data-dir may come from $RANGECOPY_CATALOG and $RANGECOPY_DATA_DIR,
		// as rangecopy server takes them.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return applySettings(c.Flags(), "")
		},
	}
	f.add(c.PersistentFlags())
	var name, role string
	create := &cobra.Command{
		Use:   "create --name <name> --role viewer|operator|admin",
		Short: "create a token and print its secret (shown only now)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if name == "" {
				return usageErrorf("--name is required: whom or what the token is for")
			}
			if !catalog.Role(role).Valid() {
				return usageErrorf("--role %q: want viewer, operator or admin", role)
			}
			return withCatalog(c.Context(), f, func(ctx context.Context, cat *catalog.Catalog) error {
				t, secret, err := cat.CreateToken(ctx, name, catalog.Role(role))
				if err != nil {
					return err
				}
				return printToken(c.OutOrStdout(), jsonOut, t, secret)
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "whom or what the token is for (required)")
	create.Flags().StringVar(&role, "role", "viewer", "viewer, operator or admin")
	create.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	list := &cobra.Command{
		Use:   "list",
		Short: "list tokens (never their secrets)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withCatalog(c.Context(), f, func(ctx context.Context, cat *catalog.Catalog) error {
				ts, err := cat.ListTokens(ctx)
				if err != nil {
					return err
				}
				w := c.OutOrStdout()
				if jsonOut {
					return json.NewEncoder(w).Encode(ts)
				}
				for _, t := range ts {
					state := "valid"
					if t.RevokedAt != nil {
						state = "revoked " + t.RevokedAt.Format(time.RFC3339)
					}
					if _, err := fmt.Fprintf(w, "%-21s %-9s %-30s %s\n", t.ID, t.Role, t.Name, state); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	list.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	revoke := &cobra.Command{
		Use:   "revoke <token-id>",
		Short: "revoke a token from now on",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withCatalog(c.Context(), f, func(ctx context.Context, cat *catalog.Catalog) error {
				t, err := cat.RevokeToken(ctx, args[0])
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.OutOrStdout(), "token %s (%s) revoked at %s\n", t.ID, t.Name, t.RevokedAt.Format(time.RFC3339))
				return err
			})
		},
	}
	c.AddCommand(create, list, revoke)
	return c
}

func withCatalog(ctx context.Context, f catalogFlags, do func(context.Context, *catalog.Catalog) error) error {
	cat, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer cat.Close()
	return do(ctx, cat)
}

func printToken(w io.Writer, jsonOut bool, t catalog.Token, secret string) error {
	if jsonOut {
		return json.NewEncoder(w).Encode(struct {
			catalog.Token
			Secret string `json:"secret"`
		}{t, secret})
	}
	_, err := fmt.Fprintf(w, "token %s (%s, %s)\nsecret %s\n", t.ID, t.Name, t.Role, secret)
	return err
}
