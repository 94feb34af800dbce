package server

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/registry"
)

type listTasksIn struct {
	ID    string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
	State string `query:"state" enum:"pending,running,done,failed" doc:"keep tasks in this state"`
	api.PageQuery
}

type listTasksOutput struct {
	Body api.TaskList
}

// taskStates sorts every task of a job into its state from three listings of the registry
// (the claims and the two kinds of result), not one read per task.
func taskStates(all, claimed, done, failed []string) map[string]string {
	st := make(map[string]string, len(all))
	for _, t := range all {
		st[t] = "pending"
	}
	for _, group := range []struct {
		ids   []string
		state string
	}{{claimed, "running"}, {done, "done"}, {failed, "failed"}} {
		for _, t := range group.ids {
			if _, ok := st[t]; ok {
				st[t] = group.state
			}
		}
	}
	return st
}

// pageAfter returns up to limit ids of sorted that sort after cursor and pass keep, and the
// cursor of the next page ("" on the last).
func pageAfter(sorted []string, cursor string, limit int, keep func(string) bool) ([]string, string) {
	i := sort.SearchStrings(sorted, cursor)
	if i < len(sorted) && sorted[i] == cursor {
		i++
	}
	var out []string
	for ; i < len(sorted); i++ {
		if !keep(sorted[i]) {
			continue
		}
		if len(out) == limit {
			return out, out[len(out)-1]
		}
		out = append(out, sorted[i])
	}
	return out, ""
}

func (a *rest) listTasks(ctx context.Context, in *listTasksIn) (*listTasksOutput, error) {
	reg := a.s.reg
	if err := knownJobID(in.ID); err != nil {
		return nil, err
	}
	if _, err := reg.Job(ctx, in.ID); err != nil {
		if errors.Is(err, registry.ErrNotFound) {
			if _, cerr := a.s.cat.GetJob(ctx, in.ID); cerr == nil {
				return nil, huma.Error404NotFound("job " + in.ID + ": its tasks are gone from the registry (the job ended or was lost)")
			}
			return nil, huma.Error404NotFound("job " + in.ID + ": no such job")
		}
		return nil, a.problem(err, "job "+in.ID)
	}
	all, err := reg.Tasks(ctx, in.ID)
	if err != nil && !errors.Is(err, registry.ErrNotFound) {
		return nil, a.problem(err, "tasks of "+in.ID)
	}
	lists := map[registry.Status][]string{}
	for _, s := range []registry.Status{registry.StatusClaimed, registry.StatusDone, registry.StatusFailed} {
		ids, err := reg.TasksWith(ctx, in.ID, s)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return nil, a.problem(err, "tasks of "+in.ID)
		}
		lists[s] = ids
	}
	slices.Sort(all)
	st := taskStates(all, lists[registry.StatusClaimed], lists[registry.StatusDone], lists[registry.StatusFailed])
	limit := in.Limit
	if limit <= 0 {
		limit = catalog.DefaultPageSize
	}
	ids, next := pageAfter(all, in.Cursor, limit, func(id string) bool { return in.State == "" || st[id] == in.State })
	out := &listTasksOutput{}
	out.Body.Tasks = make([]api.TaskOut, 0, len(ids))
	for _, id := range ids {
		t := api.TaskOut{ID: id, State: api.TaskState(st[id])}
		if b, err := reg.TaskSpec(ctx, in.ID, id); err == nil {
			if ts, err := job.DecodeTaskSpec(b); err == nil {
				t.StartRow, t.StopRow = job.FormatKey(ts.Task.Rows.Start), job.FormatKey(ts.Task.Rows.End)
				t.Bytes = ts.Task.Bytes
			}
		}
		if t.State == "done" || t.State == "failed" {
			if res, err := reg.TaskResult(ctx, in.ID, id); err == nil {
				t.Worker, t.Error = res.Worker, res.Message
			}
		}
		out.Body.Tasks = append(out.Body.Tasks, t)
	}
	out.Body.Next = next
	return out, nil
}
