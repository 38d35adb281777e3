package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Settle implements [guard.Store].
func (s *Store) Settle(ctx context.Context, family token.BlockID, id guard.RequestID, o guard.Outcome, now time.Time) error {
	if err := guard.ValidateOutcome(o); err != nil {
		return err
	}
	return s.write(ctx, "settle", func(tx *sql.Tx) error {
		var reason, state, hold, keep int64
		var charges string
		err := tx.QueryRowContext(ctx, `SELECT reason, state, hold, keep, charges FROM requests WHERE family = ? AND id = ?`,
			family[:], id[:]).Scan(&reason, &state, &hold, &keep, &charges)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (reason != int64(guard.Admitted) || nanos(now) > keep)) {
			return guard.ErrNoReservation
		}
		if err != nil {
			return err
		}
		next, giveBack, serr := guard.HoldState(state).Settle(o, now, time.Unix(0, hold))
		if serr != nil && !outcome(serr) {
			return serr
		}
		if next != guard.HoldState(state) {
			_, err := tx.ExecContext(ctx, `UPDATE requests SET state = ? WHERE family = ? AND id = ?`, int64(next), family[:], id[:])
			if err != nil {
				return err
			}
		}
		if giveBack {
			if err := giveBackCharges(ctx, tx, family, charges); err != nil {
				return err
			}
		}
		return serr
	})
}

// giveBackCharges subtracts each "counter amount" line of charges from
// its counter, never below zero.
func giveBackCharges(ctx context.Context, tx *sql.Tx, family token.BlockID, charges string) error {
	for line := range strings.Lines(charges) {
		name, n, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		amount, err := strconv.ParseUint(n, 10, 63)
		if !ok || err != nil {
			return fmt.Errorf("unreadable charge %q", line)
		}
		_, err = tx.ExecContext(ctx, `UPDATE counters SET spent = max(spent - ?, 0) WHERE family = ? AND counter = ?`,
			int64(amount), family[:], name)
		if err != nil {
			return err
		}
	}
	return nil
}

// Revoke implements [guard.Store].
func (s *Store) Revoke(ctx context.Context, r guard.Revocation, now time.Time) error {
	if err := guard.ValidateBlocks(r.Blocks); err != nil {
		return err
	}
	return s.write(ctx, "revoke", func(tx *sql.Tx) error {
		for _, id := range r.Blocks {
			_, err := tx.ExecContext(ctx, `INSERT INTO revoked (family, block, expires) VALUES (?, ?, ?)
				ON CONFLICT DO UPDATE SET
				expires = CASE WHEN expires = 0 OR excluded.expires = 0 THEN 0 ELSE max(expires, excluded.expires) END`,
				r.Family[:], id[:], nanos(r.Expires))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Revoked implements [guard.Store].
func (s *Store) Revoked(ctx context.Context, family token.BlockID, blocks []token.BlockID) (int, error) {
	if err := guard.ValidateBlocks(blocks); err != nil {
		return -1, err
	}
	for i, id := range blocks {
		var one int
		err := s.st.isRevoked.QueryRowContext(ctx, family[:], id[:]).Scan(&one)
		if err == nil {
			return i, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return -1, s.failed("revoked", err)
		}
	}
	return -1, nil
}

// Spent implements [guard.Store].
func (s *Store) Spent(ctx context.Context, family token.BlockID, budgets []verify.Budget) ([]guard.Usage, error) {
	if err := guard.ValidateBudgets(budgets); err != nil {
		return nil, err
	}
	u := make([]guard.Usage, len(budgets))
	for i, b := range budgets {
		spent, err := spentOf(s.st.getCounter.QueryRowContext(ctx, family[:], guard.CounterOf(b).String()))
		if err != nil {
			return nil, s.failed("spent", err)
		}
		u[i] = guard.NewUsage(b, spent)
	}
	return u, nil
}

// cleanup removes at most guard.CleanBatch expired entries of each kind.
func cleanup(ctx context.Context, tx *sql.Tx, now time.Time) error {
	n := nanos(now)
	for _, q := range []string{
		`DELETE FROM replay WHERE (family, digest) IN (SELECT family, digest FROM replay WHERE until < ? LIMIT ?)`,
		`DELETE FROM requests WHERE (family, id) IN (SELECT family, id FROM requests WHERE keep < ? LIMIT ?)`,
		`DELETE FROM counters WHERE (family, counter) IN
			(SELECT family, counter FROM counters WHERE expires BETWEEN 1 AND ? - 1 LIMIT ?)`,
		`DELETE FROM revoked WHERE (family, block) IN
			(SELECT family, block FROM revoked WHERE expires BETWEEN 1 AND ? - 1 LIMIT ?)`,
	} {
		if _, err := tx.ExecContext(ctx, q, n, guard.CleanBatch); err != nil {
			return err
		}
	}
	return nil
}
