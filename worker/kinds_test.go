package worker

import (
	"context"
	"errors"
	"testing"

	"rangecopy/job"
	"rangecopy/jobkind"
)

type fakeKind struct{}

func (fakeKind) Open(context.Context, jobkind.Env) (jobkind.Job, error) { return nil, nil }

func TestServedBy(t *testing.T) {
	kinds := map[string]jobkind.Server{job.KindVerify: fakeKind{}}
	for _, tc := range []struct {
		name     string
		rec      job.Record
		err      error
		kinds    map[string]jobkind.Server
		served   bool
		kindServ bool
	}{
		{"detached copy", job.Record{Kind: job.KindCopy, Options: job.RunOptions{Detached: true}}, nil, kinds, true, false},
		{"copy of a rangecopy copy process", job.Record{Kind: job.KindCopy}, nil, kinds, false, false},
		{"old record without a kind, detached", job.Record{Options: job.RunOptions{Detached: true}}, nil, nil, true, false},
		{"verification", job.Record{Kind: job.KindVerify}, nil, kinds, true, true},
		{"verification, not detached, still served", job.Record{Kind: job.KindVerify, Options: job.RunOptions{Detached: false}}, nil, kinds, true, true},
		{"verification with no server for it", job.Record{Kind: job.KindVerify}, nil, nil, false, false},
		{"unknown kind", job.Record{Kind: "move"}, nil, kinds, false, false},
		{"record that does not decode", job.Record{}, errors.New("bad"), kinds, false, false},
	} {
		served, ks := servedBy(tc.rec, tc.err, tc.kinds)
		if served != tc.served || (ks != nil) != tc.kindServ {
			t.Errorf("%s: served %v, kind server %v; want %v, %v", tc.name, served, ks != nil, tc.served, tc.kindServ)
		}
	}
}
