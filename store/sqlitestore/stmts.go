package sqlitestore

import (
	"context"
	"database/sql"
)

// The statements of the hot path, prepared once per handle: parsing SQL
// would otherwise cost as much as running it.
const (
	qGetRequest = `SELECT digest, reason, idx, keep FROM requests WHERE family = ? AND id = ?`
	qPutRequest = `INSERT OR REPLACE INTO requests (family, id, digest, reason, idx, state, hold, keep, charges)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qIsRevoked = `SELECT 1 FROM revoked WHERE family = ? AND block = ?`
	qGetReplay = `SELECT until FROM replay WHERE family = ? AND digest = ?`
	qPutReplay = `INSERT INTO replay (family, digest, until) VALUES (?, ?, ?)
		ON CONFLICT DO UPDATE SET until = excluded.until`
	qGetCounter = `SELECT spent FROM counters WHERE family = ? AND counter = ?`
	qAddCounter = `INSERT INTO counters (family, counter, spent, expires) VALUES (?, ?, ?, ?)
		ON CONFLICT DO UPDATE SET spent = spent + excluded.spent,
		expires = CASE WHEN expires = 0 OR excluded.expires = 0 THEN 0 ELSE max(expires, excluded.expires) END`
)

type stmts struct {
	getRequest, putRequest, isRevoked, getReplay, putReplay, getCounter, addCounter *sql.Stmt
}

func prepare(ctx context.Context, db *sql.DB) (*stmts, error) {
	var st stmts
	for _, p := range []struct {
		s **sql.Stmt
		q string
	}{
		{&st.getRequest, qGetRequest}, {&st.putRequest, qPutRequest}, {&st.isRevoked, qIsRevoked},
		{&st.getReplay, qGetReplay}, {&st.putReplay, qPutReplay}, {&st.getCounter, qGetCounter},
		{&st.addCounter, qAddCounter},
	} {
		var err error
		if *p.s, err = db.PrepareContext(ctx, p.q); err != nil {
			return nil, err
		}
	}
	return &st, nil
}

// txn runs prepared statements in one transaction.
type txn struct {
	ctx context.Context
	tx  *sql.Tx
}

func (t txn) exec(s *sql.Stmt, args ...any) error {
	_, err := t.tx.StmtContext(t.ctx, s).ExecContext(t.ctx, args...)
	return err
}

func (t txn) row(s *sql.Stmt, args ...any) *sql.Row {
	return t.tx.StmtContext(t.ctx, s).QueryRowContext(t.ctx, args...)
}
