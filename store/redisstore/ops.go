package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Admit implements [guard.Store]: one script, one round trip (two with
// Options.Replicas, pipelined on one connection).
func (s *Store) Admit(ctx context.Context, a guard.Admission) (guard.Verdict, error) {
	p, err := guard.Prepare(&a)
	if err != nil {
		return guard.Verdict{}, err
	}
	k := s.keys(p.Family)
	keys := make([]string, 0, 2+len(p.Revocable)+len(p.Charges))
	keys = append(keys, k.request(a.Request))
	for _, id := range p.Revocable {
		keys = append(keys, k.revoked(id))
	}
	keys = append(keys, k.replay(p.Replay))
	var charges strings.Builder
	args := make([]any, 12, 12+3*len(p.Charges))
	for _, c := range p.Charges {
		name := k.counter(c.Counter)
		keys = append(keys, name)
		if p.Hold {
			charges.WriteString(name + " " + strconv.FormatUint(c.Amount, 10) + "\n")
		}
		args = append(args, strconv.FormatUint(c.Limit, 10), strconv.FormatUint(c.Amount, 10), flag(c.Mismatch))
	}
	state := guard.Captured
	if p.Hold {
		state = guard.Held
	}
	args[0], args[1], args[2] = len(p.Revocable), hex.EncodeToString(p.Digest[:]), micros(a.Now)
	args[3], args[4], args[5] = "0", "0", "0"
	if a.Replay != nil {
		args[3], args[4], args[5] = "1", micros(a.Replay.Until), s.expiry(a.Replay.Until)
	}
	args[6], args[7], args[8] = s.expiry(a.Expires), int(state), micros(a.HoldUntil)
	args[9], args[10], args[11] = micros(p.Keep), s.expiry(p.Keep), charges.String()
	res, err := s.run(ctx, admitScript, keys, args...)
	if err != nil {
		return guard.Verdict{}, guard.Failed("redisstore", "admit", err)
	}
	r, ok := res.([]any)
	if !ok || len(r) != 3 {
		return guard.Verdict{}, guard.Failed("redisstore", "admit", fmt.Errorf("unexpected reply %v", res))
	}
	reason, _ := r[0].(int64)
	index, _ := r[1].(int64)
	repeated, _ := r[2].(int64)
	if reason == -1 {
		return guard.Verdict{}, guard.ErrConflict
	}
	if reason < 0 || reason > int64(guard.Exhausted) {
		return guard.Verdict{}, guard.Failed("redisstore", "admit", fmt.Errorf("unexpected reason %d", reason))
	}
	why := guard.Reason(reason)
	return guard.Verdict{Admitted: why == guard.Admitted, Reason: why, Index: int(index), Repeated: repeated == 1}, nil
}

// run runs script, falling back from EVALSHA to EVAL when the server does
// not hold it (after a restart). With Options.Replicas it pipelines a
// WAIT on the same connection and fails unless enough replicas
// acknowledged the script's writes.
func (s *Store) run(ctx context.Context, script *redis.Script, keys []string, args ...any) (any, error) {
	if s.replicas == 0 {
		return script.Run(ctx, s.rdb, keys, args...).Result()
	}
	eval := func(sha bool) (any, int64, error) {
		pipe := s.rdb.Pipeline()
		var cmd *redis.Cmd
		if sha {
			cmd = script.EvalSha(ctx, pipe, keys, args...)
		} else {
			cmd = script.Eval(ctx, pipe, keys, args...)
		}
		acked := redis.NewIntCmd(ctx, "wait", s.replicas, s.wait.Milliseconds())
		pipe.Process(ctx, acked)
		pipe.Exec(ctx)
		if err := cmd.Err(); err != nil {
			return nil, 0, err
		}
		n, err := acked.Result()
		return cmd.Val(), n, err
	}
	res, n, err := eval(true)
	if redis.HasErrorPrefix(err, "NOSCRIPT") {
		res, n, err = eval(false)
	}
	if err != nil {
		return nil, err
	}
	if n < int64(s.replicas) {
		return nil, fmt.Errorf("%d of %d replicas acknowledged the write within %v", n, s.replicas, s.wait)
	}
	return res, nil
}

// Settle implements [guard.Store].
func (s *Store) Settle(ctx context.Context, family token.BlockID, id guard.RequestID, o guard.Outcome, now time.Time) error {
	if err := guard.ValidateOutcome(o); err != nil {
		return err
	}
	k := s.keys(family)
	keys := []string{k.request(id)}
	args := []any{int(o), micros(now), ""}
	if o == guard.Release {
		rec, err := s.rdb.Get(ctx, keys[0]).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return guard.Failed("redisstore", "settle", err)
		}
		var charges string
		if f := strings.SplitN(rec, "|", 7); len(f) == 7 {
			charges = f[6]
		}
		for line := range strings.Lines(charges) {
			name, _, _ := strings.Cut(line, " ")
			keys = append(keys, name)
		}
		args[2] = charges
	}
	res, err := s.run(ctx, settleScript, keys, args...)
	if err != nil {
		return guard.Failed("redisstore", "settle", err)
	}
	switch res {
	case "ok":
		return nil
	case "none":
		return guard.ErrNoReservation
	case "settled":
		return guard.ErrSettled
	}
	// "changed": the request was overwritten between the read and the
	// script; the caller retries, as after any store failure.
	return guard.Failed("redisstore", "settle", fmt.Errorf("reservation changed while settling (%v)", res))
}

// Revoke implements [guard.Store].
func (s *Store) Revoke(ctx context.Context, r guard.Revocation, now time.Time) error {
	if err := guard.ValidateBlocks(r.Blocks); err != nil {
		return err
	}
	k := s.keys(r.Family)
	keys := make([]string, len(r.Blocks))
	for i, id := range r.Blocks {
		keys[i] = k.revoked(id)
	}
	if _, err := s.run(ctx, revokeScript, keys, s.expiry(r.Expires)); err != nil {
		return guard.Failed("redisstore", "revoke", err)
	}
	return nil
}

// Revoked implements [guard.Store].
func (s *Store) Revoked(ctx context.Context, family token.BlockID, blocks []token.BlockID) (int, error) {
	if err := guard.ValidateBlocks(blocks); err != nil {
		return -1, err
	}
	k := s.keys(family)
	keys := make([]string, len(blocks))
	for i, id := range blocks {
		keys[i] = k.revoked(id)
	}
	vals, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return -1, guard.Failed("redisstore", "revoked", err)
	}
	for i, v := range vals {
		if v != nil {
			return i, nil
		}
	}
	return -1, nil
}

// Spent implements [guard.Store].
func (s *Store) Spent(ctx context.Context, family token.BlockID, budgets []verify.Budget) ([]guard.Usage, error) {
	if err := guard.ValidateBudgets(budgets); err != nil {
		return nil, err
	}
	k := s.keys(family)
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(budgets))
	for i, b := range budgets {
		cmds[i] = pipe.HGet(ctx, k.counter(guard.CounterOf(b)), "n")
	}
	if len(budgets) > 0 {
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return nil, guard.Failed("redisstore", "spent", err)
		}
	}
	u := make([]guard.Usage, len(budgets))
	for i, b := range budgets {
		var spent uint64
		if v, err := cmds[i].Result(); err == nil {
			if spent, err = strconv.ParseUint(v, 10, 64); err != nil {
				return nil, guard.Failed("redisstore", "spent", fmt.Errorf("counter holds %q", v))
			}
		} else if !errors.Is(err, redis.Nil) {
			return nil, guard.Failed("redisstore", "spent", err)
		}
		u[i] = guard.NewUsage(b, spent)
	}
	return u, nil
}

// micros returns t in Unix µs as a decimal string, "0" for the zero time.
func micros(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixMicro(), 10)
}

// expiry returns the Unix ms at which a key kept until t may go, by the
// server's clock: t plus the clock skew, rounded up; "0" (never) for the
// zero time.
func (s *Store) expiry(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.Add(s.skew).UnixMilli()+1, 10)
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
