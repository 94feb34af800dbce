package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
)

func (a *rest) registerWorkers() {
	huma.Register(a.h, op("list-workers", http.MethodGet, "/workers", "List live workers and what they run", catalog.RoleViewer, "workers"),
		func(ctx context.Context, _ *struct{}) (*struct {
			Body struct {
				Workers []api.WorkerOut `json:"workers" doc:"by id"`
			}
		}, error) {
			ws, err := a.s.reg.Workers(ctx)
			if err != nil {
				return nil, a.problem(err, "workers")
			}
			held, err := a.s.heldTasks(ctx)
			if err != nil {
				return nil, a.problem(err, "workers")
			}
			out := &struct {
				Body struct {
					Workers []api.WorkerOut `json:"workers" doc:"by id"`
				}
			}{}
			out.Body.Workers = []api.WorkerOut{}
			for _, w := range ws {
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
		h := api.Health{Status: "ok", Checks: map[string]string{"catalog": "ok", "zookeeper": "ok"}, Leader: a.s.leads()}
		if err := a.s.cat.Ping(ctx); err != nil {
			h.Status, h.Checks["catalog"] = "unavailable", err.Error()
		}
		if _, err := a.s.reg.Leader(ctx); err != nil {
			h.Status, h.Checks["zookeeper"] = "unavailable", err.Error()
		}
		if h.Status != "ok" {
			return nil, huma.Error503ServiceUnavailable("not ready: catalog " + h.Checks["catalog"] + "; zookeeper " + h.Checks["zookeeper"])
		}
		return &struct{ Body api.Health }{Body: h}, nil
	})
}
