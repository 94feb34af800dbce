package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/catalog"
)

// WorkerOut is a live worker.
type WorkerOut struct {
	ID       string `json:"id" doc:"the worker's id"`
	Capacity int    `json:"capacity" doc:"tasks it runs at once"`
	Info     string `json:"info,omitempty" doc:"host, version, process"`
	Running  int    `json:"running" doc:"tasks it holds now"`
}

func (a *api) registerWorkers() {
	huma.Register(a.h, op("list-workers", http.MethodGet, "/workers", "List live workers and what they run", catalog.RoleViewer, "workers"),
		func(ctx context.Context, _ *struct{}) (*struct {
			Body struct {
				Workers []WorkerOut `json:"workers" doc:"by id"`
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
					Workers []WorkerOut `json:"workers" doc:"by id"`
				}
			}{}
			out.Body.Workers = []WorkerOut{}
			for _, w := range ws {
				out.Body.Workers = append(out.Body.Workers, WorkerOut{ID: w.ID, Capacity: w.Capacity, Info: w.Info, Running: held[w.ID]})
			}
			return out, nil
		})
}

// Health is the answer of the health checks.
type Health struct {
	Status string            `json:"status" enum:"ok,unavailable" doc:"ok when every check passed"`
	Checks map[string]string `json:"checks,omitempty" doc:"each check and its outcome"`
	Leader bool              `json:"leader" doc:"this server leads the master election"`
}

func (a *api) registerHealth() {
	huma.Register(a.h, op("healthz", http.MethodGet, "/healthz", "Is the process up?", "", "health"),
		func(ctx context.Context, _ *struct{}) (*struct{ Body Health }, error) {
			return &struct{ Body Health }{Body: Health{Status: "ok", Leader: a.s.leads()}}, nil
		})
	ready := op("readyz", http.MethodGet, "/readyz", "Can it serve: catalog and ZooKeeper reachable?", "", "health")
	ready.Errors = []int{http.StatusServiceUnavailable}
	huma.Register(a.h, ready, func(ctx context.Context, _ *struct{}) (*struct{ Body Health }, error) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		h := Health{Status: "ok", Checks: map[string]string{"catalog": "ok", "zookeeper": "ok"}, Leader: a.s.leads()}
		if err := a.s.cat.Ping(ctx); err != nil {
			h.Status, h.Checks["catalog"] = "unavailable", err.Error()
		}
		if _, err := a.s.reg.Leader(ctx); err != nil {
			h.Status, h.Checks["zookeeper"] = "unavailable", err.Error()
		}
		if h.Status != "ok" {
			return nil, huma.Error503ServiceUnavailable("not ready: catalog " + h.Checks["catalog"] + "; zookeeper " + h.Checks["zookeeper"])
		}
		return &struct{ Body Health }{Body: h}, nil
	})
}
