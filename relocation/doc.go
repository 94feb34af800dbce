// Package relocation is the pure core of a scheduled data-center relocation: a full copy of
// every table in scope, then catch-up windows on a cron schedule, then a gated cut-over that
// runs a final window and verifies (and repairs) the whole scope.
//
// Nothing here does I/O. Transition takes a relocation's State and one Event (something that
// happened, or the clock) and returns the next State and the Actions an executor performs:
// submit a window's jobs, record a skipped tick, start a verification, pause, resume or
// cancel jobs. The executor reports back with further events. PlanWindow turns a window into
// one copy request per table; Gates says whether a cut-over may start; ParseSchedule reads a
// cron expression.
//
// The phases:
//
//	copying ──full copy ran──▶ catching-up ◀──lag over max-lag──▶ ready
//	   │                           │  ▲  windows on the schedule      │
//	   │                           ▼  │                               │
//	   │                         paused ◀─────────────────────────────┘
//	   │                           │
//	   │       cut-over (gates, or force) from catching-up or ready
//	   │                           ▼
//	   │                     cutting-over ──final window, verify, repair──▶ done
//	   ▼
//	failed (why) ◀── a full copy or final window that failed, differences left after repair
//	cancelled   ◀── any phase that has not ended
package relocation
