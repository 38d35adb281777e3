package guard

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/tickettool/tickettool/token"
)

// liveOps returns the number of the family's live keys and the bytes of
// their kept results at now.
func (s *MemoryStore) liveOps(family token.BlockID, now time.Time) (n, size int) {
	for _, o := range s.ops[family] {
		if !OperationExpired(o, now) {
			n++
			size += len(o.Result)
		}
	}
	return n, size
}

// op returns the family's record of key, or nil.
func (s *MemoryStore) op(family token.BlockID, key string) *Operation { return s.ops[family][key] }

// StartOperation implements [OperationStore].
func (s *MemoryStore) StartOperation(ctx context.Context, st OperationStart) (Claim, Operation, error) {
	if err := ValidateOperationStart(&st); err != nil {
		return 0, Operation{}, err
	}
	if err := s.lock(ctx, "start operation"); err != nil {
		return 0, Operation{}, err
	}
	defer s.mu.Unlock()
	old := s.op(st.Family, st.Key)
	if old != nil && OperationExpired(old, st.Now) {
		delete(s.ops[st.Family], st.Key)
		old = nil
	}
	n, _ := s.liveOps(st.Family, st.Now)
	c := DecideStart(&st, old, n)
	switch c {
	case ClaimNew:
		o := NewOperation(&st)
		if s.ops[st.Family] == nil {
			s.ops[st.Family] = map[string]*Operation{}
		}
		s.ops[st.Family][st.Key] = &o
		return c, o, nil
	case ClaimReplay:
		old.Replays++
		old.Replay = st.Now
	}
	if old == nil {
		return c, Operation{}, nil
	}
	o := *old
	o.Result = bytes.Clone(old.Result)
	return c, o, nil
}

// FinishOperation implements [OperationStore].
func (s *MemoryStore) FinishOperation(ctx context.Context, family token.BlockID, key string, request RequestID, result []byte, now time.Time) (bool, error) {
	if err := s.lock(ctx, "finish operation"); err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	o := s.op(family, key)
	if o == nil || o.Request != request || o.State != OperationRunning {
		return false, ErrNoOperation
	}
	_, size := s.liveOps(family, now)
	o.State, o.Finished = OperationFinished, now
	if len(result) <= MaxOperationResult && size+len(result) <= MaxFamilyResults {
		o.Kept, o.Result = true, bytes.Clone(result)
		if o.Result == nil {
			o.Result = []byte{}
		}
	}
	return o.Kept, nil
}

// DropOperation implements [OperationStore].
func (s *MemoryStore) DropOperation(ctx context.Context, family token.BlockID, key string, request RequestID, state OperationState) error {
	if err := ValidateDropState(state); err != nil {
		return err
	}
	if err := s.lock(ctx, "drop operation"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	o := s.op(family, key)
	if o == nil || o.Request != request || o.State != OperationRunning {
		return ErrNoOperation
	}
	o.State = state
	return nil
}

// Operations implements [OperationStore].
func (s *MemoryStore) Operations(ctx context.Context, family token.BlockID, now time.Time) ([]Operation, error) {
	if err := s.lock(ctx, "operations"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []Operation
	for _, o := range s.ops[family] {
		if !OperationExpired(o, now) {
			c := *o
			c.Result = nil
			out = append(out, c)
		}
	}
	SortOperations(out)
	return out, nil
}

// SortOperations orders operations by start, then key.
func SortOperations(ops []Operation) {
	slices.SortFunc(ops, func(a, b Operation) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}
