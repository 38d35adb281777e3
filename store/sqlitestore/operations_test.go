package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
)

// A store whose operations table was never created (every store until
// its first keyed call, and every store made before operation keys) lists
// no operations and finishes none, without an error; the first start
// creates the table in its own transaction.
func TestOperationsTableCreatedOnFirstStart(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var fam [32]byte
	now := time.Now()
	if ops, err := s.Operations(ctx, fam, now); err != nil || len(ops) != 0 {
		t.Fatalf("operations %v %v", ops, err)
	}
	if _, err := s.FinishOperation(ctx, fam, "k", guard.NewRequestID(), nil, now); err != guard.ErrNoOperation {
		t.Fatalf("finish: %v", err)
	}
	st := guard.OperationStart{Family: fam, Key: "k", Request: guard.NewRequestID(), Now: now}
	if c, _, err := s.StartOperation(ctx, st); err != nil || c != guard.ClaimNew {
		t.Fatalf("start: %v %v", c, err)
	}
	if ops, err := s.Operations(ctx, fam, now); err != nil || len(ops) != 1 {
		t.Fatalf("operations %v %v", ops, err)
	}
}
