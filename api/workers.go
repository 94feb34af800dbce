package api

// WorkerOut is a live worker.
type WorkerOut struct {
	ID       string `json:"id" doc:"the worker's id"`
	Capacity int    `json:"capacity" doc:"tasks it runs at once"`
	Info     string `json:"info,omitempty" doc:"host, version, process"`
	Running  int    `json:"running" doc:"tasks it holds now"`
}

// Health is the answer of the health checks.
type Health struct {
	Status string            `json:"status" enum:"ok,unavailable" doc:"ok when every check passed"`
	Checks map[string]string `json:"checks,omitempty" doc:"each check and its outcome"`
	Leader bool              `json:"leader" doc:"this server leads the master election"`
}
