package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"rangecopy/api"
)

// verifyServerOnly are verify's flags the server's REST API does not take.
var verifyServerOnly = []string{"source-hdfs", "target-hdfs", "parallelism", "batch-size", "keep-snapshots", "zk-root",
	"work-dir", "user", "hashtable-out", "against-hashtable", "hash-batch-size", "num-hash-files", "versions"}

// verificationRequest is the request verify --server sends, from its flags; a usage error
// when they are wrong as the command line would be.
func verificationRequest(c *cobra.Command, f verifyFlags) (api.VerificationRequest, error) {
	if err := onlyWithoutServer(c.Flags(), "the server runs the comparison with its own settings", verifyServerOnly...); err != nil {
		return api.VerificationRequest{}, err
	}
	if f.source.spec == "" || f.target.spec == "" {
		return api.VerificationRequest{}, usageErrorf("--source and --target are required: names of clusters registered on the server (rangecopy cluster list)")
	}
	if f.rng.table == "" {
		return api.VerificationRequest{}, usageErrorf("--table is required")
	}
	if f.maxDiffs < 1 || f.maxDiffs > 100000 {
		return api.VerificationRequest{}, usageErrorf("--max-diffs %d: want 1 to 100000", f.maxDiffs)
	}
	if f.mode != "visible" && f.mode != "raw" {
		return api.VerificationRequest{}, usageErrorf("--mode %q: want visible or raw", f.mode)
	}
	rq, err := f.rng.request()
	if err != nil {
		return api.VerificationRequest{}, err
	}
	rq.Bandwidth = f.bandwidth
	if _, _, err := rq.Resolve(); err != nil {
		return api.VerificationRequest{}, fieldUsage(err)
	}
	return api.VerificationRequest{Source: f.source.spec, Target: f.target.spec, Table: rq.Table, TargetTable: rq.TargetTable,
		StartRow: rq.StartRow, StopRow: rq.StopRow, StartTime: rq.StartTime, EndTime: rq.EndTime, Families: rq.Families,
		Mode: f.mode, Bandwidth: f.bandwidth, MaxDiffs: f.maxDiffs, Repair: f.repair, ReadAll: f.readAll}, nil
}

// runVerifyOnServer runs a verification on the server: it creates it, waits for its end and
// prints its report (the server's JSON with --json). A verification that found the tables
// different ends in errDifferent (exit 3), one that could not compare in an error (exit 1).
func runVerifyOnServer(c *cobra.Command, f verifyFlags) error {
	req, err := verificationRequest(c, f)
	if err != nil {
		return err
	}
	if err := f.log.check(); err != nil {
		return err
	}
	client, err := f.api.client()
	if err != nil {
		return err
	}
	ctx, stderr := c.Context(), c.ErrOrStderr()
	v, err := client.CreateVerification(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rangecopy: verification %s of %s runs on %s\n", v.ID, req.Table, client.URL())
	end, err := client.WaitVerification(ctx, v.ID, 2*time.Second, nil)
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	if f.jsonOut {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(end); err != nil {
			return err
		}
	} else if err := writeVerification(w, end); err != nil {
		return err
	}
	switch end.State {
	case api.VerificationPassed:
		return nil
	case api.VerificationFailed:
		n := int64(0)
		if end.Report != nil {
			n = end.Report.DifferenceCount
		}
		return fmt.Errorf("%w: verification %s found %d differing cells", errDifferent, end.ID, n)
	}
	return fmt.Errorf("verification %s ended in %s: %s", end.ID, end.State, end.Error)
}

// writeVerification writes a verification that ended, for a person.
func writeVerification(w io.Writer, v api.VerificationOutput) error {
	fmt.Fprintf(w, "verification %s: %s\n", v.ID, v.State)
	if v.Error != "" {
		fmt.Fprintf(w, "error    %s\n", v.Error)
	}
	r := v.Report
	if r == nil {
		return nil
	}
	fmt.Fprintf(w, "tables   %s (snapshot %s) vs %s (snapshot %s), mode %s\n", r.SourceTable, r.SourceSnapshot, r.TargetTable, r.TargetSnapshot, r.Mode)
	fmt.Fprintf(w, "cells    source %d, target %d; rows source %d, target %d\n", r.SourceCells, r.TargetCells, r.SourceRows, r.TargetRows)
	fmt.Fprintf(w, "batches  %d: %d matched (%d by checksums), %d mismatched\n", r.Batches, r.BatchesMatched, r.BatchesProven, r.BatchesMismatched)
	fmt.Fprintf(w, "differ   %d cells\n", r.DifferenceCount)
	for _, d := range r.Differences {
		fmt.Fprintf(w, "  %s: row %s %s:%s @%d %s\n", d.Kind, d.Row, d.Family, d.Qualifier, d.Timestamp, d.Type)
	}
	for _, rg := range r.Repaired {
		fmt.Fprintf(w, "repaired [%s, %s)\n", rg.StartRow, rg.StopRow)
	}
	_, err := fmt.Fprintf(w, "read     %d bytes in %s\n", r.BytesRead, (time.Duration(r.ElapsedMs) * time.Millisecond).String())
	return err
}
