package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// operationsSQL makes the table of operation keys. It is created by the
// first StartOperation, in its transaction, so a store of schema version 1
// made before operation keys existed gains it without a new version.
const operationsSQL = `CREATE TABLE IF NOT EXISTS operations (family BLOB NOT NULL, key TEXT NOT NULL,
	binding BLOB NOT NULL, request BLOB NOT NULL, tool TEXT NOT NULL, state INTEGER NOT NULL,
	started INTEGER NOT NULL, hold INTEGER NOT NULL, finished INTEGER NOT NULL, kept INTEGER NOT NULL,
	result BLOB, replays INTEGER NOT NULL, replay INTEGER NOT NULL, expires INTEGER NOT NULL,
	PRIMARY KEY (family, key)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS operations_expires ON operations (expires);
CREATE INDEX IF NOT EXISTS operations_family_expires ON operations (family, expires);
CREATE TABLE IF NOT EXISTS operation_counts (family BLOB NOT NULL PRIMARY KEY, n INTEGER NOT NULL,
	bytes INTEGER NOT NULL) WITHOUT ROWID;`

const opColumns = `key, binding, request, tool, state, started, hold, finished, kept, replays, replay, expires`

type scanner interface{ Scan(dest ...any) error }

func scanOperation(r scanner, withResult bool) (guard.Operation, error) {
	var o guard.Operation
	var binding, request []byte
	var state, started, hold, finished, replays, replay, expires int64
	var kept bool
	dest := []any{&o.Key, &binding, &request, &o.Tool, &state, &started, &hold, &finished, &kept, &replays, &replay, &expires}
	if withResult {
		dest = append(dest, &o.Result)
	}
	if err := r.Scan(dest...); err != nil {
		return o, err
	}
	if len(binding) != len(o.Binding) || len(request) != len(o.Request) {
		return o, errors.New("unreadable operation")
	}
	copy(o.Binding[:], binding)
	copy(o.Request[:], request)
	o.State, o.Kept, o.Replays = guard.OperationState(state), kept, uint64(replays)
	o.Started, o.HoldUntil = time.Unix(0, started), time.Unix(0, hold)
	o.Finished, o.Replay, o.Expires = fromNanos(finished), fromNanos(replay), fromNanos(expires)
	if withResult && o.Kept && o.Result == nil {
		o.Result = []byte{}
	}
	return o, nil
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// StartOperation implements [guard.OperationStore].
func (s *Store) StartOperation(ctx context.Context, st guard.OperationStart) (guard.Claim, guard.Operation, error) {
	if err := guard.ValidateOperationStart(&st); err != nil {
		return 0, guard.Operation{}, err
	}
	var claim guard.Claim
	var out guard.Operation
	err := s.write(ctx, "start operation", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, operationsSQL); err != nil {
			return err
		}
		now := nanos(st.Now)
		// The family's expired keys (in practice all of them, or none:
		// they share the family's expiry), then a batch of others'.
		if err := deleteOperations(ctx, tx, `DELETE FROM operations WHERE family = ? AND expires BETWEEN 1 AND ? - 1 RETURNING family, length(result)`,
			st.Family[:], now); err != nil {
			return err
		}
		if err := deleteOperations(ctx, tx, `DELETE FROM operations WHERE (family, key) IN
			(SELECT family, key FROM operations WHERE expires BETWEEN 1 AND ? - 1 LIMIT ?) RETURNING family, length(result)`, now, guard.CleanBatch); err != nil {
			return err
		}
		var old *guard.Operation
		o, err := scanOperation(tx.QueryRowContext(ctx, `SELECT `+opColumns+`, result FROM operations WHERE family = ? AND key = ?`,
			st.Family[:], st.Key), true)
		switch {
		case err == nil:
			old = &o
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		err = nil
		var n int
		if old == nil {
			err := tx.QueryRowContext(ctx, `SELECT n FROM operation_counts WHERE family = ?`, st.Family[:]).Scan(&n)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		switch claim = guard.DecideStart(&st, old, n); claim {
		case guard.ClaimNew:
			out = guard.NewOperation(&st)
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO operations VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0, NULL, 0, 0, ?)`,
				st.Family[:], st.Key, out.Binding[:], out.Request[:], out.Tool, int64(out.State),
				nanos(out.Started), nanos(out.HoldUntil), nanosOrZero(out.Expires))
			if err == nil && old == nil {
				_, err = tx.ExecContext(ctx, `INSERT INTO operation_counts VALUES (?, 1, 0) ON CONFLICT (family) DO UPDATE SET n = n + 1`,
					st.Family[:])
			}
			return err
		case guard.ClaimReplay:
			o.Replays++
			o.Replay = st.Now
			_, err = tx.ExecContext(ctx, `UPDATE operations SET replays = replays + 1, replay = ? WHERE family = ? AND key = ?`,
				now, st.Family[:], st.Key)
		}
		if old != nil {
			out = o
		}
		return err
	})
	if err != nil {
		return 0, guard.Operation{}, err
	}
	return claim, out, nil
}

// deleteOperations runs a DELETE … RETURNING family, length(result) of
// operation keys and takes each deleted key, and its kept bytes, off its
// family's count (operation_counts, which spares StartOperation and
// FinishOperation going through a family's keys one by one).
func deleteOperations(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	type gone struct{ n, bytes int64 }
	byFamily := map[string]gone{}
	for rows.Next() {
		var family []byte
		var size sql.NullInt64
		if err := rows.Scan(&family, &size); err != nil {
			rows.Close()
			return err
		}
		g := byFamily[string(family)]
		g.n++
		g.bytes += size.Int64
		byFamily[string(family)] = g
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for family, g := range byFamily {
		if _, err := tx.ExecContext(ctx, `UPDATE operation_counts SET n = n - ?, bytes = max(bytes - ?, 0) WHERE family = ?`,
			g.n, g.bytes, []byte(family)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM operation_counts WHERE family = ? AND n <= 0`, []byte(family)); err != nil {
			return err
		}
	}
	return nil
}

func nanosOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return nanos(t)
}

// FinishOperation implements [guard.OperationStore].
func (s *Store) FinishOperation(ctx context.Context, family token.BlockID, key string, request guard.RequestID, result []byte, now time.Time) (bool, error) {
	var kept bool
	err := s.write(ctx, "finish operation", func(tx *sql.Tx) error {
		if err := s.runningOperation(ctx, tx, family, key, request); err != nil {
			return err
		}
		var size int64
		err := tx.QueryRowContext(ctx, `SELECT bytes FROM operation_counts WHERE family = ?`, family[:]).Scan(&size)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		kept = len(result) <= guard.MaxOperationResult && size+int64(len(result)) <= guard.MaxFamilyResults
		var keep []byte
		if kept {
			keep = append([]byte{}, result...)
		}
		_, err = tx.ExecContext(ctx, `UPDATE operations SET state = ?, finished = ?, kept = ?, result = ? WHERE family = ? AND key = ?`,
			int64(guard.OperationFinished), nanos(now), kept, keep, family[:], key)
		if err == nil && kept {
			_, err = tx.ExecContext(ctx, `UPDATE operation_counts SET bytes = bytes + ? WHERE family = ?`, len(keep), family[:])
		}
		return err
	})
	return kept, err
}

// runningOperation fails with guard.ErrNoOperation unless key names a
// running operation of request.
func (s *Store) runningOperation(ctx context.Context, tx *sql.Tx, family token.BlockID, key string, request guard.RequestID) error {
	var state int64
	var req []byte
	err := tx.QueryRowContext(ctx, `SELECT state, request FROM operations WHERE family = ? AND key = ?`, family[:], key).Scan(&state, &req)
	switch {
	case errors.Is(err, sql.ErrNoRows), err != nil && strings.Contains(err.Error(), "no such table"):
		return guard.ErrNoOperation
	case err != nil:
		return err
	case state != int64(guard.OperationRunning) || string(req) != string(request[:]):
		return guard.ErrNoOperation
	}
	return nil
}

// DropOperation implements [guard.OperationStore].
func (s *Store) DropOperation(ctx context.Context, family token.BlockID, key string, request guard.RequestID, state guard.OperationState) error {
	if err := guard.ValidateDropState(state); err != nil {
		return err
	}
	return s.write(ctx, "drop operation", func(tx *sql.Tx) error {
		if err := s.runningOperation(ctx, tx, family, key, request); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE operations SET state = ? WHERE family = ? AND key = ?`,
			int64(state), family[:], key)
		return err
	})
}

// Operations implements [guard.OperationStore]. A store whose operations
// table was never created has none.
func (s *Store) Operations(ctx context.Context, family token.BlockID, now time.Time) ([]guard.Operation, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+opColumns+` FROM operations WHERE family = ? AND NOT expires BETWEEN 1 AND ? - 1`,
		family[:], nanos(now))
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, s.failed("operations", err)
	}
	defer rows.Close()
	var out []guard.Operation
	for rows.Next() {
		o, err := scanOperation(rows, false)
		if err != nil {
			return nil, s.failed("operations", err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, s.failed("operations", err)
	}
	guard.SortOperations(out)
	return out, nil
}
