// Package redisstore is a guard.Store in Redis (6.2 or later), shared by
// a fleet of verifiers on several machines.
//
// Each admission is one Lua script (EVALSHA, falling back to EVAL when
// the server has forgotten it, e.g. after a restart): Redis runs a script
// as one step, so no two verifiers can both take the last unit of a
// budget. Every key of a family carries the hash tag {FAMILY}, block 0's
// id in hex, so all of one admission's keys — the verdict, every block's
// revocation, the proof's replay key, the counters of budgets set by any
// block — lie in one Redis Cluster slot (see keys). Revoke, Revoked,
// Settle and Spent therefore take the family too.
//
// Keys expire by the server's clock: counters at the admission's Expires,
// replay keys at their Until, verdicts after guard.RequestRetention,
// revocations at the Revocation's Expires (or never), each plus
// Options.ClockSkew, so that a server clock running ahead of the
// verifiers' by up to that much forgets nothing early. Decisions compare
// the times callers pass, never the server's clock.
//
// Limits and costs above 2^53 are refused (guard.MaxCount): Lua numbers
// are doubles. Open refuses a server whose maxmemory-policy may evict
// keys (anything but noeviction), since an evicted counter or replay key
// would let a spent budget or a used proof be used again; where CONFIG
// GET is disabled it refuses unless Options.AssumeNoEviction says the
// operator vouches for the policy.
//
// Durability is the server's: with appendonly yes and appendfsync always
// an acknowledged admission survives a crash of the server (the tests
// kill it with SIGKILL mid-run). With appendfsync everysec (Redis's
// default) it does not, even when only the process dies: while an fsync
// is running Redis postpones writing to the file, by up to two seconds,
// yet acknowledges the writes, so a kill loses them and their budget can
// be spent again. Replication to replicas is asynchronous:
// on a failover, charges the old primary acknowledged but had not yet
// sent may be lost, and the budget spent again. Options.Replicas makes
// every write wait (WAIT) until that many replicas hold it, and fail —
// the caller refuses — when they do not within Options.ReplicaTimeout.
// Then an admission a caller saw admitted is on that many replicas, and a
// failover to one of them loses none; a failover to a replica that did
// not acknowledge can still lose it. WAIT does not make Redis strongly
// consistent.
package redisstore
