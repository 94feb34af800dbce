package master

import (
	"context"
	"fmt"

	"rangecopy/job"
	"rangecopy/registry"
)

// storeReport writes a job's report record into its report side node.
func storeReport(ctx context.Context, reg *registry.Registry, rep job.Report) error {
	b, err := job.EncodeReport(rep)
	if err != nil {
		return err
	}
	return reg.PutJobData(ctx, rep.Job, registry.NodeReport, b)
}

// LoadReport reads the report stored for a job: its progress while a master
// serves it, its final report once it ended. A job without one yet reads as
// (zero, false, nil). A report of the first format (release 02d71e2 and
// before) is read too (job.DecodeReport).
func LoadReport(ctx context.Context, reg *registry.Registry, id string) (job.Report, bool, error) {
	b, err := reg.JobData(ctx, id, registry.NodeReport)
	if err != nil || len(b) == 0 {
		return job.Report{}, false, err
	}
	rep, err := job.DecodeReport(b)
	if err != nil {
		return job.Report{}, false, fmt.Errorf("job %s: report: %w", id, err)
	}
	return rep, true, nil
}
