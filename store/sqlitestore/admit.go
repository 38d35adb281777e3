package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/guard"
)

// testHookInTx, when set (by tests only), runs inside every admission's
// transaction between its reads and its writes.
var testHookInTx func()

// Admit implements [guard.Store].
func (s *Store) Admit(ctx context.Context, a guard.Admission) (guard.Verdict, error) {
	p, err := guard.Prepare(&a)
	if err != nil {
		return guard.Verdict{}, err
	}
	s.mu.Lock()
	s.admits++
	clean := s.admits%guard.CleanEvery == 0
	s.mu.Unlock()
	var v guard.Verdict
	err = s.write(ctx, "admit", func(tx *sql.Tx) error {
		var err error
		v, err = s.admit(txn{ctx, tx}, &a, &p)
		if err == nil && clean {
			err = cleanup(ctx, tx, a.Now)
		}
		return err
	})
	return v, err
}

// write runs fn in one write transaction (BEGIN IMMEDIATE). It commits
// when fn returns nil or one of the guard errors that report an outcome
// (the transaction may have recorded it), and rolls back otherwise.
func (s *Store) write(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.failed(op, lockWait(ctx, err))
	}
	err = fn(tx)
	if err != nil && !outcome(err) {
		tx.Rollback()
		return s.failed(op, err)
	}
	if cerr := tx.Commit(); cerr != nil {
		return s.failed(op, cerr)
	}
	return err
}

func outcome(err error) bool {
	return errors.Is(err, guard.ErrConflict) || errors.Is(err, guard.ErrSettled) || errors.Is(err, guard.ErrNoReservation) ||
		errors.Is(err, guard.ErrNoOperation)
}

func (s *Store) admit(t txn, a *guard.Admission, p *guard.Plan) (guard.Verdict, error) {
	now := nanos(a.Now)
	var digest []byte
	var reason, idx, keep int64
	err := t.row(s.st.getRequest, p.Family[:], a.Request[:]).Scan(&digest, &reason, &idx, &keep)
	switch {
	case err == nil && now <= keep:
		if !bytes.Equal(digest, p.Digest[:]) {
			return guard.Verdict{}, guard.ErrConflict
		}
		r := guard.Reason(reason)
		return guard.Verdict{Admitted: r == guard.Admitted, Reason: r, Index: int(idx), Repeated: true}, nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return guard.Verdict{}, err
	}
	v, err := s.decide(t, a, p)
	if err != nil {
		return v, err
	}
	if testHookInTx != nil {
		testHookInTx()
	}
	state := guard.Captured
	var charges string
	if v.Admitted {
		if p.Hold {
			state = guard.Held
		}
		if charges, err = s.charge(t, a, p); err != nil {
			return v, err
		}
	}
	err = t.exec(s.st.putRequest, p.Family[:], a.Request[:], p.Digest[:], int64(v.Reason), int64(v.Index),
		int64(state), nanos(a.HoldUntil), nanos(p.Keep), charges)
	return v, err
}

func (s *Store) decide(t txn, a *guard.Admission, p *guard.Plan) (guard.Verdict, error) {
	now := nanos(a.Now)
	for i, id := range p.Revocable {
		var one int
		err := t.row(s.st.isRevoked, p.Family[:], id[:]).Scan(&one)
		if err == nil {
			return guard.Verdict{Reason: guard.Revoked, Index: i}, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return guard.Verdict{}, err
		}
	}
	if a.Replay != nil {
		var until int64
		err := t.row(s.st.getReplay, p.Family[:], p.Replay[:]).Scan(&until)
		if err == nil && now <= until {
			return guard.Verdict{Reason: guard.Replayed, Index: -1}, nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return guard.Verdict{}, err
		}
	}
	for i, c := range p.Charges {
		spent, err := spentOf(t.row(s.st.getCounter, p.Family[:], c.Counter.String()))
		if err != nil {
			return guard.Verdict{}, err
		}
		if !c.Room(spent) {
			return guard.Verdict{Reason: guard.Exhausted, Index: i}, nil
		}
	}
	return guard.Verdict{Admitted: true, Index: -1}, nil
}

// spentOf reads what a counter holds, 0 when it does not exist.
func spentOf(row *sql.Row) (uint64, error) {
	var spent int64
	err := row.Scan(&spent)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err == nil && spent < 0 {
		return 0, errors.New("counter holds a negative number")
	}
	return uint64(spent), err
}

// charge records the replay key and reserves every charge. It returns
// what a release must give back ("counter amount" lines) when the
// reservation is held, and nothing when it is captured at once.
func (s *Store) charge(t txn, a *guard.Admission, p *guard.Plan) (string, error) {
	if a.Replay != nil && !a.Now.After(a.Replay.Until) {
		if err := t.exec(s.st.putReplay, p.Family[:], p.Replay[:], nanos(a.Replay.Until)); err != nil {
			return "", err
		}
	}
	var charges strings.Builder
	for _, c := range p.Charges {
		name := c.Counter.String()
		if err := t.exec(s.st.addCounter, p.Family[:], name, int64(c.Amount), nanos(a.Expires)); err != nil {
			return "", err
		}
		if p.Hold {
			charges.WriteString(name + " " + strconv.FormatUint(c.Amount, 10) + "\n")
		}
	}
	return charges.String(), nil
}

// nanos returns t in Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
