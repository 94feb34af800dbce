package main

import (
	"fmt"
	"net/http"
)

// route is an extra handler of the metrics listener, beside /metrics.
type route struct {
	pattern string
	handler http.Handler
}

// sessionHealth is a worker's /healthz on its metrics listener: 200 while it holds a
// ZooKeeper session (naming it), 503 while it has none, so a liveness probe restarts a worker
// that stays without one rather than one whose port merely accepts connections.
func sessionHealth(connected func() bool, session func() int64) route {
	return route{pattern: "GET /healthz", handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if !connected() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "no ZooKeeper session")
			return
		}
		fmt.Fprintf(w, "ok: ZooKeeper session %#x\n", session())
	})}
}
