package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"rangecopy/master"
	"rangecopy/registry"
)

const masterUsage = `Usage: rangecopy master --zk <host:port,...> [flags]

Runs a master: it joins the election in the registry and, while it leads,
serves every job submitted with "rangecopy copy --detach": pins and plans it
into tasks, retries failed tasks with a backoff (then pauses the job for an
operator), stores progress, and finishes or cancels it. Run two or three: one
leads, the others take over within a session timeout of its death. Stops on
SIGINT or SIGTERM.

Flags:
`

func runMaster(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rf registryFlags
	var id string
	fs := flag.NewFlagSet("master", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, masterUsage); fs.PrintDefaults() }
	rf.add(fs, true)
	fs.StringVar(&id, "id", "", "this master's name in the election (default master-<host>-<pid>)")
	if help, err := parseCommand(fs, args); help || err != nil {
		if help {
			return nil
		}
		return err
	}
	if id == "" {
		id = registry.ProcessID("master")
	}
	log, reg, err := rf.start(ctx, stderr)
	if err != nil {
		return err
	}
	defer reg.Close()
	return master.Lead(ctx, master.LeadConfig{Registry: reg, ID: id, Logger: log})
}
