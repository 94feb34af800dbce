package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"
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
		Short: "create, list, rotate or revoke the API's bearer tokens, in the catalog",
		Long: `Manages the bearer tokens of rangecopy server's API directly in its catalog
(the server need not run). Roles: viewer (read), operator (also submit, pause,
resume, cancel), admin (also clusters and tokens). A secret is shown once, when
it is created or rotated; the catalog keeps its SHA-256.

A token may expire (--expires 90d; without it, it works until revoked), and be
rotated: a new secret for the same token, the old one refused after --grace.
Scopes restrict where a token may write (submit, relocate, verify and repair
into): --scope dc2:ns_a:* lets it write the tables of namespace ns_a of
cluster dc2 and nothing else; dc2:* is all of dc2; * (the default) everywhere.
The force-cutover right (--right force-cutover) lets a token force a
relocation's cut-over past its gates, with a reason.

Every create, rotate and revoke is written to the audit log (method CLI, with
the OS user). --catalog and --data-dir may also be set as $RANGECOPY_CATALOG and
$RANGECOPY_DATA_DIR, as for rangecopy server.`,
		Example: `  rangecopy token create --name ci --role operator --expires 90d --scope dc2:ns_a:*
  rangecopy token list --catalog postgres://rc:secret@db1/rangecopy
  rangecopy token rotate tok_3f0c2a9d1b7e4c55 --grace 10m
  rangecopy token revoke tok_3f0c2a9d1b7e4c55
  rangecopy token generate > bootstrap-secret`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand("token action"),
		// --catalog and --data-dir may come from $RANGECOPY_CATALOG and $RANGECOPY_DATA_DIR,
		// as rangecopy server takes them.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return applySettings(c.Flags(), "")
		},
	}
	f.add(c.PersistentFlags())
	var name, role, expires, secretFile string
	var scopes, rights []string
	create := &cobra.Command{
		Use:   "create --name <name> --role viewer|operator|admin",
		Short: "create a token and print its secret (shown only now)",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			spec, err := tokenSpecOf(name, role, expires, secretFile, scopes, rights)
			if err != nil {
				return err
			}
			return withCatalog(c.Context(), f, func(ctx context.Context, cat *catalog.Catalog) error {
				t, secret, err := cat.NewToken(ctx, spec)
				if err != nil {
					return err
				}
				if err := auditCLI(ctx, cat, "token create", t, tokenSummary(t)); err != nil {
					return err
				}
				return printToken(c.OutOrStdout(), jsonOut, t, secret)
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "whom or what the token is for (required)")
	create.Flags().StringVar(&role, "role", "viewer", "viewer, operator or admin")
	create.Flags().StringVar(&expires, "expires", "", "lifetime of the secret: days (90d) or a duration (720h) (default: until revoked)")
	create.Flags().StringArrayVar(&scopes, "scope", nil, "where it may write: cluster[:namespace[:table]], e.g. dc2:ns_a:* (repeatable; default * everywhere)")
	create.Flags().StringArrayVar(&rights, "right", nil, "a right beyond the role: force-cutover (repeatable)")
	create.Flags().StringVar(&secretFile, "secret-file", "", "take the secret from this file (rangecopy token generate) and print none (default: a new secret)")
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
				now := time.Now()
				for _, t := range ts {
					if _, err := fmt.Fprintf(w, "%-21s %-9s %-30s %-40s %s\n", t.ID, t.Role, t.Name, tokenState(t, now), tokenScope(t)); err != nil {
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
				if err := auditCLI(ctx, cat, "token revoke", t, "revoked at "+t.RevokedAt.Format(time.RFC3339)); err != nil {
					return err
				}
				_, err = fmt.Fprintf(c.OutOrStdout(), "token %s (%s) revoked at %s\n", t.ID, t.Name, t.RevokedAt.Format(time.RFC3339))
				return err
			})
		},
	}
	var grace time.Duration
	var rotExpires string
	rotate := &cobra.Command{
		Use:   "rotate <token-id>",
		Short: "give a token a new secret (shown only now); the old one stops after --grace",
		Long: `Gives the token a new secret, printed once; the token keeps its id, name,
role, scopes and rights. The old secret is refused from now on, or after
--grace (at most 168h) so that its users can switch. An expired token works
again, for the lifetime it had (--expires to change it); a revoked one is not
rotated.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts := catalog.RotateOptions{Grace: grace}
			if grace < 0 || grace > catalog.MaxRotationGrace {
				return usageErrorf("--grace %s: want 0s to %s", grace, catalog.MaxRotationGrace)
			}
			if rotExpires != "" {
				d, err := catalog.ParseLifetime(rotExpires)
				if err != nil {
					return usageErrorf("--expires: %v", err)
				}
				opts.Lifetime = &d
			}
			return withCatalog(c.Context(), f, func(ctx context.Context, cat *catalog.Catalog) error {
				t, secret, err := cat.RotateToken(ctx, args[0], opts)
				if err != nil {
					return err
				}
				msg := "rotated; the old secret works until " + t.PreviousSecretUntil.Format(time.RFC3339)
				if err := auditCLI(ctx, cat, "token rotate", t, msg); err != nil {
					return err
				}
				return printToken(c.OutOrStdout(), jsonOut, t, secret)
			})
		},
	}
	rotate.Flags().DurationVar(&grace, "grace", 0, "how long the old secret keeps working, up to 168h (default 0: not at all)")
	rotate.Flags().StringVar(&rotExpires, "expires", "", "lifetime of the new secret: days (90d) or a duration (default: the lifetime the token had)")
	rotate.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	generate := &cobra.Command{
		Use:   "generate",
		Short: "print a new, well-formed token secret (no catalog needed)",
		Long: `Prints a new token secret and nothing else, for a token made later from it:
rangecopy server --bootstrap-token-file, or rangecopy token create --secret-file.
Keep it where secrets live (a Kubernetes Secret, a vault); the catalog will
keep only its SHA-256.`,
		Example: `  kubectl -n rangecopy create secret generic rangecopy-bootstrap-token \
      --from-literal=token="$(rangecopy token generate)"`,
		Args: noArgs,
		// No catalog: the parent's settings are not read.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(c *cobra.Command, _ []string) error {
			s, err := catalog.GenerateSecret()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(c.OutOrStdout(), s)
			return err
		},
	}
	c.AddCommand(create, list, rotate, revoke, generate)
	return c
}

// tokenSpecOf reads token create's flags.
func tokenSpecOf(name, role, expires, secretFile string, scopes, rights []string) (catalog.TokenSpec, error) {
	if name == "" {
		return catalog.TokenSpec{}, usageErrorf("--name is required: whom or what the token is for")
	}
	spec := catalog.TokenSpec{Name: name, Role: catalog.Role(role)}
	if !spec.Role.Valid() {
		return spec, usageErrorf("--role %q: want viewer, operator or admin", role)
	}
	var err error
	if spec.Scopes, err = catalog.ParseScopes(scopes); err != nil {
		return spec, usageErrorf("--scope: %v", err)
	}
	for _, r := range rights {
		if !catalog.Right(r).Valid() {
			return spec, usageErrorf("--right %q: want %s", r, catalog.RightForceCutover)
		}
		spec.Rights = append(spec.Rights, catalog.Right(r))
	}
	if expires != "" {
		if spec.Lifetime, err = catalog.ParseLifetime(expires); err != nil {
			return spec, usageErrorf("--expires: %v", err)
		}
	}
	if secretFile != "" {
		if spec.Secret, err = readSecretFile(secretFile); err != nil {
			return spec, usageErrorf("--secret-file: %v", err)
		}
	}
	return spec, nil
}

// readSecretFile reads a token secret an operator generated (rangecopy token generate) from
// a file, refusing the placeholder the shipped manifests hold.
func readSecretFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if s == "CHANGE-ME" {
		return "", fmt.Errorf("%s holds the placeholder CHANGE-ME, not a secret: put a secret of rangecopy token generate in it (in Kubernetes, the Secret rangecopy-bootstrap-token)", path)
	}
	if err := catalog.CheckSecret(s); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// tokenState says whether a token works now: valid (until when), expired, or revoked.
func tokenState(t catalog.Token, now time.Time) string {
	switch {
	case t.RevokedAt != nil:
		return "revoked " + t.RevokedAt.Format(time.RFC3339)
	case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
		return "expired " + t.ExpiresAt.Format(time.RFC3339)
	case t.ExpiresAt != nil:
		return "valid until " + t.ExpiresAt.Format(time.RFC3339)
	}
	return "valid, no expiry"
}

// tokenScope is a token's scopes and rights as token list shows them.
func tokenScope(t catalog.Token) string {
	s := "scope " + t.Scopes.String()
	for _, r := range t.Rights {
		s += " +" + string(r)
	}
	return s
}

// tokenSummary describes a new token for the audit log.
func tokenSummary(t catalog.Token) string {
	s := fmt.Sprintf("created, role %s, %s", t.Role, tokenScope(t))
	if t.ExpiresAt != nil {
		s += ", expires " + t.ExpiresAt.Format(time.RFC3339)
	}
	return s
}

// auditCLI records a token change made on the command line in the catalog's audit log:
// method CLI, the command as path, the token changed, and the OS user who did it.
func auditCLI(ctx context.Context, cat *catalog.Catalog, command string, t catalog.Token, msg string) error {
	who := osUser()
	e := catalog.AuditEntry{TokenID: t.ID, TokenName: t.Name, Role: t.Role, Method: "CLI", Path: command,
		RemoteAddr: who, Status: 200, Message: msg + " by OS user " + who}
	if _, err := cat.AppendAudit(ctx, e); err != nil {
		return fmt.Errorf("%s: done, but not written to the audit log: %w", command, err)
	}
	return nil
}

// osUser names the OS user running the command, and the host: "alice@db1".
func osUser() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	} else if v := os.Getenv("USER"); v != "" {
		name = v
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		name += "@" + h
	}
	return name
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
			Secret string `json:"secret,omitempty"`
		}{t, secret})
	}
	if _, err := fmt.Fprintf(w, "token %s (%s, %s, %s, %s)\n", t.ID, t.Name, t.Role, tokenState(t, time.Now()), tokenScope(t)); err != nil {
		return err
	}
	if secret == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "secret %s\n", secret)
	return err
}
