// Package registry is the ZooKeeper task registry that rangecopy's master and
// workers share: jobs and their state, tasks bucketed by a hash of their id,
// claims fenced by a per-task epoch, checkpoints, results, live workers and
// master election.
//
// Layout under the root (default /rangecopy):
//
//	leader/<guid>-n_<seq>                  ephemeral sequential: master election, data: candidate id
//	workers/<worker-id>                    ephemeral: a live worker, data: its capacity
//	jobs/<job-id>                          job record: state, message, spec bytes
//	jobs/<job-id>/events                   empty; its version moves on every claim, release and result
//	jobs/<job-id>/plan                     the plan's totals (JSON), from PutJobData by the planner
//	jobs/<job-id>/report                   the job's report (JSON), from PutJobData
//	jobs/<job-id>/pin                      the snapshot in use when the record's one failed (JSON)
//	jobs/<job-id>/retries                  resets per failed task (JSON), kept by the leading master
//	jobs/<job-id>/verification             a verification job's report (JSON), from PutJobData
//	jobs/<job-id>/order                    ids of the costliest tasks, costliest first (JSON), claimed first
//	jobs/<job-id>/tasks/<bb>/<task-id>     task spec bytes; the node's version is the claim epoch
//	jobs/<job-id>/claims/<bb>/<task-id>    ephemeral claim: worker id, session id, epoch
//	jobs/<job-id>/checkpoints/<bb>/<task-id>  checkpoint bytes, from the first save on
//	jobs/<job-id>/done/<bb>/<task-id>      result of a task that is done
//	jobs/<job-id>/failed/<bb>/<task-id>    result of a task that failed, with the error
//
// <bb> is one of 256 buckets (two hex digits of a hash of the task id), so no
// children list of a 100,000-task job comes near ZooKeeper's 1 MB packet
// limit. Claims, checkpoints and results live in per-bucket folders beside the
// tasks, not under each task (as the first design drew them), so counting a
// job's tasks by status costs four children listings per bucket, not a read
// per task, and every leaf is at the same depth. docs/design.md, "ZooKeeper
// layout", says who writes each node.
//
// Fencing. Claiming a task creates its ephemeral claim node and rewrites the
// task node (same bytes, expected version) in one transaction, so every claim
// moves the task's version: the claim's epoch. Every later write by the holder
// (checkpoint, result, release) is a transaction that first checks the task
// version against its epoch and that its claim node still exists. A worker
// whose session expired, and whose task was claimed again, cannot write. Before
// an irreversible outside action (a bulk load), a holder calls Claim.Valid,
// which syncs with the leader and reads the claim node's owner.
//
// A worker's loop, in brief:
//
//	c, err := reg.ClaimAny(ctx, job, workerID, Bucket(workerID))
//	taskCtx, cancel := context.WithCancel(ctx)
//	go func() { <-c.Lost(); cancel() }()     // claim lost: stop at once
//	... copy, and before each bulk load:
//	if ok, err := c.Valid(taskCtx); !ok || err != nil { stop }
//	... after it: c.SaveCheckpoint(taskCtx, cp.Encode())
//	c.Done(ctx) or c.Fail(ctx, err); on stop without a result, c.Release(ctx)
//
// and Classify(err) says what any error means: retry, stop (claim lost), or
// give up.
//
// Calls to ZooKeeper take no context in go-zookeeper: ctx is checked before
// each call, and a call in flight ends with the connection's own timeouts.
//
// Sessions. go-zookeeper opens a new session after the old one expires; every
// ephemeral node of the old session (claims, worker registration, election
// node) is gone then. The registry closes the channel returned by SessionLost
// (and each Claim's and Leadership's Lost/Done channel) as soon as it hears of
// the expiry, or when the connection has been down for a whole session timeout,
// and registers its workers again in the new session.
package registry
