package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rangecopy/api"
	"rangecopy/apiclient"
	"rangecopy/job"
	"rangecopy/relocate"
	"rangecopy/relocation"
	"rangecopy/render"
)

// relocFlags are the flags every relocation action takes: the server (as job --server
// takes it) and --json.
type relocFlags struct {
	api     apiFlags
	jsonOut bool
}

// call sends one request to the server's API and decodes a 2xx answer into out.
func (f relocFlags) call(ctx context.Context, method, path string, body, out any) error {
	c, err := f.client()
	if err != nil {
		return err
	}
	return c.Call(ctx, method, path, body, out)
}

// client is the client of the server the flags name.
func (f relocFlags) client() (*apiclient.Client, error) {
	if f.api.serverURL() == "" {
		return nil, usageErrorf("--server is required (or $%s): the URL of rangecopy server, such as http://127.0.0.1:8080", serverEnv)
	}
	return f.api.client()
}

func newRelocationCommand() *cobra.Command {
	var f relocFlags
	c := &cobra.Command{
		Use:   "relocation <action>",
		Short: "create, follow, pause, resume, cancel and cut over relocations on rangecopy server",
		Long: `Talks to rangecopy server's /api/v1/relocations. A relocation copies its tables
in full, then runs catch-up windows on a cron schedule (each copies the cells
written from the last window's time, less a margin, up to its own time T); the
cut-over runs a final window, verifies every cell written before its T and
repairs what differs (docs/relocation.md). The token comes from --token-file or
RANGECOPY_TOKEN: viewer to read, operator to act.`,
		Example: `  rangecopy relocation create --server http://rc1:8080 --source dc1 --target dc2 \
      --table ns:orders --table 'ns:users=ns2:users' --schedule '*/10 * * * *'
  rangecopy relocation status rel_3f0c2a9d1b7e4c55 --server http://rc1:8080
  rangecopy relocation cutover rel_3f0c2a9d1b7e4c55 --server http://rc1:8080 --dry-run`,
		Args: cobra.ArbitraryArgs,
		RunE: needSubcommand("relocation action"),
	}
	pf := c.PersistentFlags()
	f.api.add(pf)
	pf.BoolVar(&f.jsonOut, "json", false, "print the server's JSON")

	var in api.RelocationCreate
	create := &cobra.Command{
		Use:   "create --source <cluster> --target <cluster> --table <ns:t[=ns2:t]>... --schedule <cron>",
		Short: "create a relocation; its full copy starts at once",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkRelocationCreate(&in); err != nil {
				return err
			}
			var out api.RelocationOut
			if err := f.call(c.Context(), http.MethodPost, "/relocations", in, &out); err != nil {
				return err
			}
			return printRelocation(c.OutOrStdout(), f.jsonOut, out)
		},
	}
	cf := create.Flags()
	cf.StringVar(&in.Source, "source", "", "registered source cluster")
	cf.StringVar(&in.Target, "target", "", "registered target cluster")
	cf.StringArrayVar(&in.Tables, "table", nil, "table in scope, ns:t or ns:t=ns2:t to rename it (repeat)")
	cf.StringVar(&in.Schedule, "schedule", "", "cron expression of the windows (5 fields, 6 with seconds first, @every 10m; CRON_TZ=Area/City prefix)")
	cf.StringVar(&in.Margin, "margin", "", "how far before the watermark a window starts (default 10m)")
	cf.StringVar(&in.MaxLag, "max-lag", "", "cut-over gate on the last window's lag (default 5m)")
	cf.StringVar(&in.Bandwidth, "bandwidth", "", "each job's read cap, such as 200MB/s (at most 1TB/s)")
	cf.StringVar(&in.StartRow, "start-row", "", "first row (inclusive), \\xNN escapes")
	cf.StringVar(&in.StopRow, "stop-row", "", "row to stop before (exclusive)")
	cf.StringSliceVar(&in.Families, "families", nil, "column families (default all)")

	list := &cobra.Command{
		Use:   "list",
		Short: "list relocations",
		Args:  noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			client, err := f.client()
			if err != nil {
				return err
			}
			rs, err := client.ListRelocations(c.Context(), false)
			if err != nil {
				return err
			}
			out := api.RelocationList{Relocations: rs}
			if out.Relocations == nil {
				out.Relocations = []api.RelocationOut{}
			}
			w := c.OutOrStdout()
			if f.jsonOut {
				return json.NewEncoder(w).Encode(out)
			}
			for _, r := range out.Relocations {
				var tables []string
				for _, t := range r.Tables {
					tables = append(tables, t.Source)
				}
				if _, err := fmt.Fprintf(w, "%-21s %-12s %s→%s %s\n", r.ID, r.Phase, r.Source, r.Target, strings.Join(tables, ",")); err != nil {
					return err
				}
			}
			return nil
		},
	}
	status := &cobra.Command{
		Use:   "status <id>",
		Short: "show a relocation: phase, watermark, lag, gates, windows, report",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var out api.RelocationOut
			if err := f.call(c.Context(), http.MethodGet, "/relocations/"+args[0], nil, &out); err != nil {
				return err
			}
			return printRelocation(c.OutOrStdout(), f.jsonOut, out)
		},
	}
	var force, dryRun bool
	var reason string
	cutover := &cobra.Command{
		Use:   "cutover <id> [--force --reason <why>] [--dry-run]",
		Short: "cut over: final window, verification with repair, report (--dry-run: say what it would do)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var out api.CutoverOut
			if force && !dryRun && strings.TrimSpace(reason) == "" {
				return usageErrorf("--force needs --reason: why the gates are passed over (it goes to the audit log)")
			}
			body := map[string]any{"force": force, "dryRun": dryRun, "reason": reason}
			if err := f.call(c.Context(), http.MethodPost, "/relocations/"+args[0]+"/cutover", body, &out); err != nil {
				return err
			}
			w := c.OutOrStdout()
			if f.jsonOut {
				return json.NewEncoder(w).Encode(out)
			}
			for _, g := range out.Gates {
				fmt.Fprintf(w, "gate %-12s ok=%-5v %s\n", g.Name, g.OK, g.Detail)
			}
			switch {
			case out.Blocked != "":
				fmt.Fprintf(w, "blocked by gate %s\n", out.Blocked)
			case out.DryRun:
				fmt.Fprintln(w, "would:")
			default:
				fmt.Fprintln(w, "cut-over started:")
			}
			for _, s := range out.Steps {
				fmt.Fprintf(w, "  %s\n", s)
			}
			return nil
		},
	}
	cutover.Flags().BoolVar(&force, "force", false, "pass over the lag and verification gates (needs a token with the force-cutover right, and --reason)")
	cutover.Flags().StringVar(&reason, "reason", "", "why a forced cut-over passes over the gates, for the audit log")
	cutover.Flags().BoolVar(&dryRun, "dry-run", false, "change nothing; say what it would do and which gate blocks")
	c.AddCommand(create, list, status, cutover)
	for _, act := range []string{"pause", "resume", "cancel"} {
		c.AddCommand(&cobra.Command{
			Use:   act + " <id>",
			Short: act + " a relocation",
			Args:  cobra.ExactArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				var out api.RelocationOut
				if err := f.call(c.Context(), http.MethodPost, "/relocations/"+args[0]+"/"+act, nil, &out); err != nil {
					return err
				}
				return printRelocation(c.OutOrStdout(), f.jsonOut, out)
			},
		})
	}
	return c
}

// checkRelocationCreate checks a creation's flags with the parsers the server uses
// (relocation.ParseSchedule, relocation.ParseDuration, job.Request's checks of rows,
// families and bandwidth), so a mistake is a usage error naming the flag before anything is
// sent. It trims the family names.
func checkRelocationCreate(in *api.RelocationCreate) error {
	var msgs []string
	if len(in.Families) > 0 {
		fams, err := checkFamilies(in.Families)
		if err != nil {
			return err
		}
		in.Families = fams
	}
	if in.Schedule == "" {
		msgs = append(msgs, "--schedule is required: a cron expression such as '*/10 * * * *'")
	} else if _, err := relocation.ParseSchedule(in.Schedule); err != nil {
		msgs = append(msgs, "--schedule: "+err.Error())
	}
	if _, err := relocation.ParseDuration(in.Margin, relocate.DefaultMargin); err != nil {
		msgs = append(msgs, "--margin: "+err.Error())
	}
	if d, err := relocation.ParseDuration(in.MaxLag, relocate.DefaultMaxLag); err != nil {
		msgs = append(msgs, "--max-lag: "+err.Error())
	} else if d == 0 {
		msgs = append(msgs, "--max-lag: must be more than 0")
	}
	req := job.Request{Table: "t", StartRow: in.StartRow, StopRow: in.StopRow, Families: in.Families, Bandwidth: in.Bandwidth}
	if _, _, err := req.Resolve(); err != nil {
		for _, fe := range job.FieldErrors(err) {
			msgs = append(msgs, fe.Flag()+": "+fe.Err.Error())
		}
	}
	if len(msgs) > 0 {
		return usageErrorf("%s", strings.Join(msgs, "; "))
	}
	return nil
}

// printRelocation writes a relocation as text (or its JSON).
func printRelocation(w io.Writer, jsonOut bool, r api.RelocationOut) error {
	if jsonOut {
		return json.NewEncoder(w).Encode(r)
	}
	fmt.Fprintf(w, "relocation %s: %s", r.ID, r.Phase)
	if r.Why != "" {
		fmt.Fprintf(w, " (%s)", r.Why)
	}
	fmt.Fprintf(w, "\n  %s → %s, schedule %q, margin %s, max-lag %s\n", r.Source, r.Target, r.Schedule, r.Margin, r.MaxLag)
	for _, t := range r.Tables {
		target := t.Target
		if target == "" {
			target = t.Source
		}
		fmt.Fprintf(w, "  table %s → %s\n", t.Source, target)
	}
	if r.Watermark > 0 {
		fmt.Fprintf(w, "  watermark %s", render.Millis(r.Watermark))
		if r.LagMs != nil {
			fmt.Fprintf(w, ", last lag %s", time.Duration(*r.LagMs)*time.Millisecond)
		}
		fmt.Fprintln(w)
	}
	for _, g := range r.Gates {
		fmt.Fprintf(w, "  gate %-12s ok=%-5v %s\n", g.Name, g.OK, g.Detail)
	}
	for _, win := range r.Windows {
		fmt.Fprintf(w, "  window %d %-8s %-7s %s, jobs %d, %d bytes, lag %s %s\n", win.Seq, win.Kind, win.Outcome,
			render.Times(win.StartTime, win.EndTime), len(win.JobIDs), win.Bytes, time.Duration(win.LagMs)*time.Millisecond, win.Why)
	}
	if rep := r.Report; rep != nil {
		fmt.Fprintf(w, "  report: %d cells compared, %d batches matched by checksums, %d differences, %d left, %d ranges re-copied, %d bytes copied, %s\n",
			rep.CellsCompared, rep.BatchesProven, rep.Differences, rep.Remaining, rep.RangesRecopied, rep.BytesCopied, time.Duration(rep.DurationMs)*time.Millisecond)
	}
	return nil
}
