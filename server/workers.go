package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/registry"
)

func (a *rest) registerWorkers() {
	list := op("list-workers", http.MethodGet, "/workers", "List live workers and what they run", catalog.RoleViewer, "workers")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *struct{ api.PageQuery }) (*struct{ Body api.WorkerList }, error) {
		ws, err := a.s.reg.Workers(ctx)
		if err != nil {
			return nil, a.problem(err, "workers")
		}
		held, err := a.s.heldTasks(ctx)
		if err != nil {
			return nil, a.problem(err, "workers")
		}
		page, next := pageByKey(ws, func(w registry.Worker) string { return w.ID }, in.PageQuery)
		out := &struct{ Body api.WorkerList }{Body: api.WorkerList{Workers: []api.WorkerOut{}, Next: next}}
		for _, w := range page {
			out.Body.Workers = append(out.Body.Workers, api.WorkerOut{ID: w.ID, Capacity: w.Capacity, Info: w.Info, Running: held[w.ID]})
		}
		return out, nil
	})
}

func (a *rest) registerHealth() {
	huma.Register(a.h, op("healthz", http.MethodGet, "/healthz", "Is the process up?", "", "health"),
		func(ctx context.Context, _ *struct{}) (*struct{ Body api.Health }, error) {
			return &struct{ Body api.Health }{Body: api.Health{Status: "ok", Leader: a.s.leads()}}, nil
		})
	ready := op("readyz", http.MethodGet, "/readyz", "Can it serve: catalog and ZooKeeper reachable?", "", "health")
	ready.Errors = []int{http.StatusServiceUnavailable}
	huma.Register(a.h, ready, func(ctx context.Context, _ *struct{}) (*struct{ Body api.Health }, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		// Anyone may ask (no token): the answer says which dependency is down, never its
		// error, which can name hosts, users and paths. The error goes to the log.
		h := api.Health{Status: "ok", Checks: map[string]string{"catalog": "ok", "zookeeper": "ok"}, Leader: a.s.leads()}
		if err := a.s.cat.Ping(ctx); err != nil {
			h.Status, h.Checks["catalog"] = "unavailable", "unavailable"
			a.s.cfg.Logger.Warn("readyz: the catalog does not answer", "err", err)
		}
		if _, err := a.s.reg.Leader(ctx); err != nil {
			h.Status, h.Checks["zookeeper"] = "unavailable", "unavailable"
			a.s.cfg.Logger.Warn("readyz: ZooKeeper does not answer", "err", err)
		}
		if h.Status != "ok" {
			return nil, huma.Error503ServiceUnavailable("not ready: catalog: " + h.Checks["catalog"] + "; zookeeper: " + h.Checks["zookeeper"])
		}
		return &struct{ Body api.Health }{Body: h}, nil
	})
}
