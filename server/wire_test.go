package server

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/relocate"
	"rangecopy/relocation"
	"rangecopy/verify"
)

// jsonFields are the JSON names of a struct type's fields, embedded structs' included.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// TestWireCopiesOfEngineTypes: the api package's copies of the engine's records carry the
// same JSON fields as the records the server reads them from (a field added to one and not
// the other would be lost on the wire, or shown as a zero).
func TestWireCopiesOfEngineTypes(t *testing.T) {
	for _, c := range []struct{ engine, wire any }{
		{job.Request{}, api.CopyRequest{}},
		{job.Report{}, api.JobReport{}},
		{verify.Range{}, api.RowRange{}},
		{relocation.TableMap{}, api.TableMap{}},
		{relocate.Report{}, api.RelocationReport{}},
		{relocate.TableReport{}, api.TableVerification{}},
	} {
		e, w := reflect.TypeOf(c.engine), reflect.TypeOf(c.wire)
		if ef, wf := jsonFields(e), jsonFields(w); !slices.Equal(ef, wf) {
			t.Errorf("%s has the JSON fields %q, %s %q", e, ef, w, wf)
		}
	}
}

// TestWireStatesOfTheCatalog: every state the catalog keeps is one the API names.
func TestWireStatesOfTheCatalog(t *testing.T) {
	jobs := []api.JobState{api.JobPending, api.JobPlanning, api.JobRunning, api.JobPaused, api.JobCancelling,
		api.JobDone, api.JobFailed, api.JobCancelled, api.JobLost}
	states := []catalog.JobState{catalog.JobLost()}
	for _, s := range []job.State{job.StatePending, job.StatePlanning, job.StateRunning, job.StatePaused,
		job.StateCancelling, job.StateDone, job.StateFailed, job.StateCancelled} {
		states = append(states, catalog.StateOf(s))
	}
	for _, s := range states {
		if !slices.Contains(jobs, api.JobState(s.String())) {
			t.Errorf("job state %q is not the API's", s)
		}
		if s.Final() != api.JobState(s.String()).Final() {
			t.Errorf("job state %q: final %v in the catalog, %v in the API", s, s.Final(), api.JobState(s.String()).Final())
		}
	}
	for _, s := range []catalog.VerificationState{catalog.VerificationRunning, catalog.VerificationPassed,
		catalog.VerificationFailed, catalog.VerificationError} {
		if !slices.Contains([]api.VerificationState{api.VerificationRunning, api.VerificationPassed, api.VerificationFailed,
			api.VerificationError}, api.VerificationState(s)) {
			t.Errorf("verification state %q is not the API's", s)
		}
	}
	for _, p := range []relocation.Phase{relocation.Copying, relocation.CatchingUp, relocation.Ready, relocation.CuttingOver,
		relocation.Done, relocation.Paused, relocation.Failed, relocation.Cancelled} {
		if p.Final() != api.RelocationPhase(p).Final() {
			t.Errorf("phase %q: final %v in relocation, %v in the API", p, p.Final(), api.RelocationPhase(p).Final())
		}
	}
	for _, r := range []catalog.Role{catalog.RoleViewer, catalog.RoleOperator, catalog.RoleAdmin} {
		if !slices.Contains([]api.Role{api.RoleViewer, api.RoleOperator, api.RoleAdmin}, api.Role(r)) {
			t.Errorf("role %q is not the API's", r)
		}
	}
}
