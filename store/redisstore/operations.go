package redisstore

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// StartOperation implements [guard.OperationStore]. Every key of a family
// shares the family's expiry, so the ops hash's length counts its live
// keys (MaxFamilyOperations).
func (s *Store) StartOperation(ctx context.Context, st guard.OperationStart) (guard.Claim, guard.Operation, error) {
	if err := guard.ValidateOperationStart(&st); err != nil {
		return 0, guard.Operation{}, err
	}
	hold := st.HoldUntil
	if hold.Before(st.Now) {
		hold = st.Now
	}
	res, err := s.run(ctx, startOpScript, s.keys(st.Family).ops(), st.Key, hex.EncodeToString(st.Binding[:]),
		hex.EncodeToString(st.Request[:]), st.Tool, micros(st.Now), micros(hold), micros(st.Expires),
		s.expiry(st.Expires), guard.MaxFamilyOperations)
	if err != nil {
		return 0, guard.Operation{}, guard.Failed("redisstore", "start operation", err)
	}
	r, ok := res.([]any)
	if !ok || len(r) != 3 {
		return 0, guard.Operation{}, guard.Failed("redisstore", "start operation", fmt.Errorf("unexpected reply %v", res))
	}
	claim, _ := r[0].(int64)
	rec, _ := r[1].(string)
	result, _ := r[2].(string)
	if claim < int64(guard.ClaimNew) || claim > int64(guard.ClaimFull) {
		return 0, guard.Operation{}, guard.Failed("redisstore", "start operation", fmt.Errorf("unexpected claim %d", claim))
	}
	if rec == "" {
		return guard.Claim(claim), guard.Operation{}, nil
	}
	o, err := parseOperation(st.Key, rec)
	if err != nil {
		return 0, guard.Operation{}, guard.Failed("redisstore", "start operation", err)
	}
	if o.Kept {
		o.Result = []byte(result)
	}
	return guard.Claim(claim), o, nil
}

// parseOperation reads a record of the ops hash.
func parseOperation(key, rec string) (guard.Operation, error) {
	f := strings.SplitN(rec, "|", 11)
	if len(f) != 11 {
		return guard.Operation{}, fmt.Errorf("unreadable operation record")
	}
	o := guard.Operation{Key: key, Tool: f[10], Kept: f[6] == "1"}
	b, err1 := hex.DecodeString(f[0])
	q, err2 := hex.DecodeString(f[1])
	if err1 != nil || err2 != nil || len(b) != len(o.Binding) || len(q) != len(o.Request) {
		return o, fmt.Errorf("unreadable operation record")
	}
	copy(o.Binding[:], b)
	copy(o.Request[:], q)
	var n [8]int64
	for i, j := range []int{2, 3, 4, 5, 7, 8, 9} {
		v, err := strconv.ParseInt(f[j], 10, 64)
		if err != nil {
			return o, fmt.Errorf("unreadable operation record")
		}
		n[i] = v
	}
	o.State, o.Replays = guard.OperationState(n[0]), uint64(n[4])
	o.Started, o.HoldUntil = time.UnixMicro(n[1]), time.UnixMicro(n[2])
	o.Finished, o.Replay, o.Expires = fromMicros(n[3]), fromMicros(n[5]), fromMicros(n[6])
	return o, nil
}

func fromMicros(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMicro(n)
}

// FinishOperation implements [guard.OperationStore].
func (s *Store) FinishOperation(ctx context.Context, family token.BlockID, key string, request guard.RequestID, result []byte, now time.Time) (bool, error) {
	res, err := s.run(ctx, finishOpScript, s.keys(family).ops(), key, hex.EncodeToString(request[:]), micros(now),
		result, guard.MaxOperationResult, guard.MaxFamilyResults)
	if err != nil {
		return false, guard.Failed("redisstore", "finish operation", err)
	}
	switch res {
	case int64(1):
		return true, nil
	case int64(0):
		return false, nil
	case int64(-1):
		return false, guard.ErrNoOperation
	}
	return false, guard.Failed("redisstore", "finish operation", fmt.Errorf("unexpected reply %v", res))
}

// DropOperation implements [guard.OperationStore].
func (s *Store) DropOperation(ctx context.Context, family token.BlockID, key string, request guard.RequestID, state guard.OperationState) error {
	if err := guard.ValidateDropState(state); err != nil {
		return err
	}
	res, err := s.run(ctx, dropOpScript, s.keys(family).ops(), key, hex.EncodeToString(request[:]), int(state))
	if err != nil {
		return guard.Failed("redisstore", "drop operation", err)
	}
	if res == int64(-1) {
		return guard.ErrNoOperation
	}
	return nil
}

// Operations implements [guard.OperationStore].
func (s *Store) Operations(ctx context.Context, family token.BlockID, now time.Time) ([]guard.Operation, error) {
	recs, err := s.rdb.HGetAll(ctx, s.keys(family).ops()[0]).Result()
	if err != nil && err != redis.Nil {
		return nil, guard.Failed("redisstore", "operations", err)
	}
	var out []guard.Operation
	for key, rec := range recs {
		o, err := parseOperation(key, rec)
		if err != nil {
			return nil, guard.Failed("redisstore", "operations", err)
		}
		if !guard.OperationExpired(&o, now) {
			out = append(out, o)
		}
	}
	guard.SortOperations(out)
	return out, nil
}
