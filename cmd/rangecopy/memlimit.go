package main

import "runtime/debug"

// HeapHeadroom is what the Go heap may hold beyond the --memory budget
// before the collector works harder: the budget counts the tasks' buffers,
// not the cells in flight, the clients' state or the runtime's own.
const HeapHeadroom int64 = 64 << 20

// heapLimit is the Go runtime's soft memory limit for a process whose
// workers share a budget of budget bytes: the budget plus HeapHeadroom.
// It is not set (ok false) when GOMEMLIMIT (goMemLimit, the environment's
// value) already sets one. Without the limit the collector lets the heap
// grow to twice what is live, so the peak resident set ran at about 1.6×
// a 256 MiB budget (docs/benchmarks.md, Memory). It is pure.
func heapLimit(budget int64, goMemLimit string) (limit int64, ok bool) {
	if goMemLimit != "" || budget <= 0 {
		return 0, false
	}
	return budget + HeapHeadroom, true
}

// setHeapLimit applies heapLimit to this process.
func setHeapLimit(budget int64, goMemLimit string) {
	if limit, ok := heapLimit(budget, goMemLimit); ok {
		debug.SetMemoryLimit(limit)
	}
}
