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

// Admit implements guard.Store.
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
		v, err = admit(ctx, tx, &a, &p)
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
		return guard.Failed("sqlitestore", op, err)
	}
	err = fn(tx)
	if err != nil && !outcome(err) {
		tx.Rollback()
		if errors.Is(err, guard.ErrStore) {
			return err
		}
		return guard.Failed("sqlitestore", op, err)
	}
	if cerr := tx.Commit(); cerr != nil {
		return guard.Failed("sqlitestore", op, cerr)
	}
	return err
}

func outcome(err error) bool {
	return errors.Is(err, guard.ErrConflict) || errors.Is(err, guard.ErrSettled) || errors.Is(err, guard.ErrNoReservation)
}

func admit(ctx context.Context, tx *sql.Tx, a *guard.Admission, p *guard.Plan) (guard.Verdict, error) {
	now := nanos(a.Now)
	var digest []byte
	var reason, idx, keep int64
	err := tx.QueryRowContext(ctx, `SELECT digest, reason, idx, keep FROM requests WHERE family = ? AND id = ?`,
		p.Family[:], a.Request[:]).Scan(&digest, &reason, &idx, &keep)
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
	v, err := decide(ctx, tx, a, p)
	if err != nil {
		return v, err
	}
	if testHookInTx != nil {
		testHookInTx()
	}
	state := guard.Captured
	var charges strings.Builder
	if v.Admitted {
		if p.Hold {
			state = guard.Held
		}
		if err := charge(ctx, tx, a, p, &charges); err != nil {
			return v, err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO requests
		(family, id, digest, reason, idx, state, hold, keep, charges) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		p.Family[:], a.Request[:], p.Digest[:], int64(v.Reason), int64(v.Index), int64(state),
		nanos(a.HoldUntil), nanos(p.Keep), charges.String())
	return v, err
}

func decide(ctx context.Context, tx *sql.Tx, a *guard.Admission, p *guard.Plan) (guard.Verdict, error) {
	now := nanos(a.Now)
	for i, id := range a.Blocks {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM revoked WHERE family = ? AND block = ?`, p.Family[:], id[:]).Scan(&one)
		if err == nil {
			return guard.Verdict{Reason: guard.Revoked, Index: i}, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return guard.Verdict{}, err
		}
	}
	if a.Replay != nil {
		var until int64
		err := tx.QueryRowContext(ctx, `SELECT until FROM replay WHERE family = ? AND digest = ?`, p.Family[:], p.Replay[:]).Scan(&until)
		if err == nil && now <= until {
			return guard.Verdict{Reason: guard.Replayed, Index: -1}, nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return guard.Verdict{}, err
		}
	}
	for i, c := range p.Charges {
		spent, err := counter(ctx, tx, p.Family[:], c.Counter.String())
		if err != nil {
			return guard.Verdict{}, err
		}
		if !c.Room(spent) {
			return guard.Verdict{Reason: guard.Exhausted, Index: i}, nil
		}
	}
	return guard.Verdict{Admitted: true, Index: -1}, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// counter returns what a counter holds, 0 when it does not exist.
func counter(ctx context.Context, q querier, family []byte, name string) (uint64, error) {
	var spent int64
	err := q.QueryRowContext(ctx, `SELECT spent FROM counters WHERE family = ? AND counter = ?`, family, name).Scan(&spent)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err == nil && spent < 0 {
		return 0, errors.New("counter holds a negative number")
	}
	return uint64(spent), err
}

// charge records the replay key and reserves every charge, writing to
// charges what a release must give back.
func charge(ctx context.Context, tx *sql.Tx, a *guard.Admission, p *guard.Plan, charges *strings.Builder) error {
	if a.Replay != nil && !a.Now.After(a.Replay.Until) {
		_, err := tx.ExecContext(ctx, `INSERT INTO replay (family, digest, until) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET until = excluded.until`, p.Family[:], p.Replay[:], nanos(a.Replay.Until))
		if err != nil {
			return err
		}
	}
	for _, c := range p.Charges {
		name := c.Counter.String()
		_, err := tx.ExecContext(ctx, `INSERT INTO counters (family, counter, spent, expires) VALUES (?, ?, ?, ?)
			ON CONFLICT DO UPDATE SET spent = spent + excluded.spent,
			expires = CASE WHEN expires = 0 OR excluded.expires = 0 THEN 0 ELSE max(expires, excluded.expires) END`,
			p.Family[:], name, int64(c.Amount), nanos(a.Expires))
		if err != nil {
			return err
		}
		charges.WriteString(name + " " + strconv.FormatUint(c.Amount, 10) + "\n")
	}
	return nil
}

// nanos returns t in Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
