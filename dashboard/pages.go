package dashboard

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Page sizes: the jobs list and a job's task list.
const (
	jobsPerPage  = 100
	tasksPerPage = 50
)

func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	if d.cfg.InsecureNoAuth {
		http.Redirect(w, r, "/jobs", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "login", "Sign in", struct{ Next, Error string }{Next: safeNext(r.URL.Query().Get("next"))})
}

func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	secret := strings.TrimSpace(r.PostFormValue("secret"))
	next := safeNext(r.PostFormValue("next"))
	id, _, err := d.sessions.SignIn(r.Context(), secret)
	if err != nil {
		status, msg := http.StatusUnauthorized, "That is not a valid token secret (or the token was revoked)."
		if !errors.Is(err, ErrUnauthenticated) {
			status, msg = http.StatusServiceUnavailable, "The server cannot check tokens now: "+err.Error()
		} else {
			d.refuse(r, Principal{}, status, "sign-in with a secret that is no valid token's")
		}
		d.render(w, r, status, "login", "Sign in", struct{ Next, Error string }{next, msg})
		return
	}
	d.setSession(w, r, id)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	if id := d.sessionID(r); id != "" {
		if err := d.sessions.SignOut(r.Context(), id); err != nil {
			d.cfg.Logger.Error("dashboard: sign out: cannot end the session", "err", err)
		}
	}
	d.setSession(w, r, "")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// jobRow is a job of the list with its pre-rendered numbers.
type jobsBody struct {
	Jobs        []Job
	States      []string
	State       string
	Next, First string
	Cursor      string
	Live        bool
}

func (d *Dashboard) jobsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	if state != "" && !slices.Contains(jobStates(), state) {
		d.fail(w, r, http.StatusBadRequest, "There is no job state "+state+".")
		return
	}
	f := JobFilter{Cursor: q.Get("cursor"), Limit: jobsPerPage}
	if state != "" {
		f.States = []string{state}
	}
	pg, err := d.cfg.Source.Jobs(r.Context(), f)
	if err != nil {
		d.sourceFail(w, r, "The jobs", err)
		return
	}
	b := jobsBody{Jobs: pg.Jobs, States: jobStates(), State: state, Cursor: f.Cursor}
	if pg.Next != "" {
		b.Next = "/jobs?" + pageQuery(state, "state", pg.Next)
	}
	if f.Cursor != "" {
		b.First = "/jobs?" + pageQuery(state, "state", "")
	}
	for _, j := range pg.Jobs {
		if !j.Final {
			b.Live = true
		}
	}
	d.render(w, r, http.StatusOK, "jobs", "Jobs", b)
}

// pageQuery is the query of a filtered page at a cursor.
func pageQuery(filter, name, cursor string) string {
	v := url.Values{}
	if filter != "" {
		v.Set(name, filter)
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	return v.Encode()
}

type stateCount struct {
	State string
	N     int
	Href  string
}

type jobBody struct {
	Job         Job
	Actions     []Action
	Chart       template.HTML
	Counts      []stateCount
	TaskState   string
	Tasks       []Task
	TasksErr    string
	Next, First string
	Did         string
	Now         time.Time
}

func (d *Dashboard) jobPage(w http.ResponseWriter, r *http.Request) {
	d.showJob(w, r, http.StatusOK, "")
}

// showJob renders a job's page; note is a message of an action's outcome.
func (d *Dashboard) showJob(w http.ResponseWriter, r *http.Request, status int, note string) {
	id := r.PathValue("id")
	q := r.URL.Query()
	j, err := d.cfg.Source.Job(r.Context(), id)
	if err != nil {
		d.sourceFail(w, r, "Job "+id, err)
		return
	}
	now := time.Now()
	ts := q.Get("tasks")
	if ts == "" {
		ts = "running"
	}
	if !slices.Contains([]string{"pending", "running", "done", "failed"}, ts) {
		d.fail(w, r, http.StatusBadRequest, "There is no task state "+ts+".")
		return
	}
	b := jobBody{Job: j, TaskState: ts, Now: now}
	if ss, err := d.cfg.Source.Samples(r.Context(), j.ID); err != nil {
		d.cfg.Logger.Warn("dashboard: samples", "job", j.ID, "err", err)
		b.Chart = template.HTML(`<p class="muted">The throughput history cannot be read now: ` + template.HTMLEscapeString(err.Error()) + `</p>`)
	} else {
		b.Chart = chartSVG(throughput(ss, 30*time.Second), now)
	}
	if !j.Final {
		b.Actions = actionsFor(j.State)
	}
	base := "/jobs/" + url.PathEscape(j.ID) + "?"
	for _, c := range []stateCount{{"pending", j.Tasks.Pending, ""}, {"running", j.Tasks.Running, ""},
		{"done", j.Tasks.Done, ""}, {"failed", j.Tasks.Failed, ""}} {
		c.Href = base + pageQuery(c.State, "tasks", "") + "#tasks"
		b.Counts = append(b.Counts, c)
	}
	switch did := q.Get("did"); did {
	case "pause", "resume", "cancel", "bandwidth":
		b.Did = map[string]string{"pause": "Pause asked: running tasks stop at their checkpoint.",
			"resume": "Resumed.", "cancel": "Cancel asked: workers stop and the work folder is removed.",
			"bandwidth": "Bandwidth changed: workers take the new rate within seconds."}[did]
	}
	if note != "" {
		b.Did = note
	}
	if j.Tasks.Total > 0 && !j.Final {
		tp, err := d.cfg.Source.Tasks(r.Context(), j.ID, TaskFilter{State: ts, Cursor: q.Get("cursor"), Limit: tasksPerPage})
		switch {
		case err == nil:
			b.Tasks = tp.Tasks
			if tp.Next != "" {
				b.Next = base + pageQuery(ts, "tasks", tp.Next) + "#tasks"
			}
			if q.Get("cursor") != "" {
				b.First = base + pageQuery(ts, "tasks", "") + "#tasks"
			}
		case errors.Is(err, ErrNotFound):
			b.TasksErr = "The registry no longer holds this job's tasks."
		default:
			b.TasksErr = "The tasks cannot be listed now: " + err.Error()
		}
	}
	d.render(w, r, status, "job", "Job "+j.ID, b)
}

// act does a POSTed action and goes back to the job's page.
func (d *Dashboard) act(w http.ResponseWriter, r *http.Request) {
	id, act := r.PathValue("id"), Action(r.PathValue("action"))
	arg := ""
	switch act {
	case ActionPause, ActionResume, ActionCancel:
	case ActionBandwidth:
		arg = strings.TrimSpace(r.PostFormValue("bandwidth"))
		if arg == "" {
			d.showJob(w, r, http.StatusBadRequest, "Type a rate such as 50MB/s, or 0 for no limit.")
			return
		}
	default:
		d.fail(w, r, http.StatusNotFound, "There is no action "+string(act)+".")
		return
	}
	if err := d.cfg.Source.Act(r.Context(), sessionOf(r.Context()).who, id, act, arg); err != nil {
		var ue *UserError
		if errors.As(err, &ue) && !errors.Is(err, ErrNotFound) {
			d.showJob(w, r, ue.Status, "Refused: "+ue.Message)
			return
		}
		d.sourceFail(w, r, "Job "+id, err)
		return
	}
	http.Redirect(w, r, "/jobs/"+url.PathEscape(id)+"?did="+string(act), http.StatusSeeOther)
}

func (d *Dashboard) workersPage(w http.ResponseWriter, r *http.Request) {
	ws, err := d.cfg.Source.Workers(r.Context())
	if err != nil {
		d.sourceFail(w, r, "The workers", err)
		return
	}
	slots, used := 0, 0
	for _, wk := range ws {
		slots += wk.Capacity
		used += len(wk.Running)
	}
	d.render(w, r, http.StatusOK, "workers", "Workers", struct {
		Workers     []Worker
		Slots, Used int
	}{ws, slots, used})
}
