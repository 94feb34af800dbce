package worker

import (
	"rangecopy/job"
	"rangecopy/jobkind"
)

// servedBy says whether a worker serves a job, and how: a copy when it was
// submitted for the workers (rangecopy copy --detach; a copy run by one
// rangecopy copy process is left to it), any other kind when one of kinds
// serves it, whoever submitted it. A record that does not decode is not
// served. Pure.
func servedBy(rec job.Record, decodeErr error, kinds map[string]jobkind.Server) (served bool, ks jobkind.Server) {
	if decodeErr != nil {
		return false, nil
	}
	if rec.IsCopy() {
		return rec.Options.Detached, nil
	}
	ks, ok := kinds[rec.Kind]
	return ok && ks != nil, ks
}
