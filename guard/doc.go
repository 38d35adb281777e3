// Package guard holds the state a verifier keeps between calls — budget
// counters, used DPoP proofs, revoked blocks — behind one interface,
// [Store], so that the promises of a ticket hold across restarts, processes
// and machines, not only within one process.
//
// # The contract
//
// Admit is one atomic step: it checks that no block of the chain is
// revoked, that the DPoP proof's replay key (RFC 9449 §11.1) is not live,
// and that every calls and total budget has room for this call; only if
// all hold does it record the replay key and reserve the call on every
// budget. A reservation counts against its budgets from the moment Admit
// returns, so concurrent callers on any number of handles can never admit
// more than a budget allows. Settle then captures the reservation (the
// call ran) or releases it (the call did not run, and its hold has not
// ended); an unsettled reservation counts as captured once its hold ends.
//
// Budgets are counted per (block id, kind, currency): a budget set by
// block i is shared by every ticket descending from block i, so a
// delegation family cannot multiply it. The replay key, revocations,
// verdicts and counters are kept per family (block 0's id). A proof
// cannot be replayed in another family: its ath claim binds it to one
// ticket.
//
// A used discharge (an approver's approval) is charged and
// revoked like a block: its calls and total budgets are keyed by its id
// (the DID, verify.UsedDischarge), charged in the same Admit as the
// ticket's (so calls=1 admits one call, whichever process asks), and a
// DID revoked in the family ([Guard.RevokeDischarge]) refuses the
// admission as a revoked block does. Admission.Discharges carries the
// DIDs; a budget keyed by anything but a block of the chain or one of
// them is invalid.
//
// # Retries and failure
//
// Every admission carries a [RequestID] the caller draws once per call. An
// Admit that repeats a request id returns the first verdict and charges
// nothing again, for [RequestRetention] after the last instant the
// admission can matter. So a caller whose Admit failed or whose reply was
// lost retries with the same id, and is charged once.
//
// Stores fail closed: every error of a store matches [ErrStore], and a
// caller must treat any error, and any verdict it did not receive, as a
// refusal. A store never admits on a failure.
//
// # Operation keys
//
// A request id names one admission; an operation key, chosen by the
// caller, names one operation across attempts (an agent's retry is a new
// request). [Guard.VerifyPreparedCall] with CallOptions.Operation claims
// the key in the store ([OperationStore], which every store of this module
// implements), bound to the request ([OperationBinding]): the first call
// runs, and its caller keeps the result ([Guard.FinishOperation]); a
// repeat of the same request gets that result back (Decision.Replayed),
// admits and charges nothing but the DPoP proof, and leaves a replayed
// receipt; the key with another request, or while the first runs, is
// refused with [CheckOperation]. Keys and results are bounded per result
// and per family (see limits.go) and expire with the family.
//
// # Numbers
//
// Every store refuses (ErrInvalid) limits and costs above [MaxCount], 2^53,
// so that a Redis script, whose numbers are doubles, counts as exactly as
// SQLite and the memory store do. Times are the caller's: a store never
// reads a clock of its own to decide, though one that expires entries by
// its own clock (Redis) keeps them longer by a configured skew.
//
// # Implementations
//
// MemoryStore (this package) is in-process. Packages store/sqlitestore
// (one host, several processes) and store/redisstore (a fleet) implement
// the same contract, and package guard/storetest holds the conformance
// suite they all pass. Prepare, [HoldState.Settle] and [NewUsage] are for
// implementations, so that every store checks input and settles the same
// way.
package guard
