package redisstore

import (
	"encoding/hex"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// keys names the keys of one family. Every key of a family holds the
// hash tag {FAMILY} (block 0's id in hex), so all of them live in one
// Redis Cluster slot and one script may touch them all: an admission
// reads the revocations of every block of the chain, the proof's replay
// key, the counters of budgets set by several blocks and the request's
// verdict, and every block of a chain belongs to the chain's family.
//
//	PREFIX{FAMILY}:req:ID        a verdict and its reservation (hash)
//	PREFIX{FAMILY}:rev:BLOCK     a revoked block (its expiry, or 0)
//	PREFIX{FAMILY}:jti:DIGEST    a used DPoP proof (its until, µs)
//	PREFIX{FAMILY}:b:COUNTER     a budget counter (hash: n spent, e expiry)
//
// COUNTER is guard.Counter.String: "BLOCK.calls" or "BLOCK.total.USD".
type keys struct{ base string }

func (s *Store) keys(family token.BlockID) keys {
	return keys{s.prefix + "{" + hex.EncodeToString(family[:]) + "}:"}
}

func (k keys) request(id guard.RequestID) string { return k.base + "req:" + id.String() }

func (k keys) revoked(block token.BlockID) string { return k.base + "rev:" + block.String() }

func (k keys) replay(digest [32]byte) string { return k.base + "jti:" + hex.EncodeToString(digest[:]) }

func (k keys) counter(c guard.Counter) string { return k.base + "b:" + c.String() }

// Operation keys of a family live in three keys sharing the family's
// expiry (block 0's until, the same for every key of the family):
//
//	PREFIX{FAMILY}:ops      hash: operation key → "BINDING|REQUEST|STATE|STARTED|HOLD|FINISHED|KEPT|REPLAYS|REPLAY|EXPIRES|TOOL"
//	PREFIX{FAMILY}:opr      hash: operation key → its kept result
//	PREFIX{FAMILY}:opbytes  the bytes of the family's kept results
func (k keys) ops() []string {
	return []string{k.base + "ops", k.base + "opr", k.base + "opbytes"}
}
