package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
	"github.com/tickettool/tickettool/guard"
)

// Options configures a [Store]. The zero value is the safe default.
type Options struct {
	// Prefix starts every key; empty means DefaultPrefix. It may not hold
	// braces (the hash tag is the family's) or white space.
	Prefix string
	// ClockSkew is how far the Redis server's clock may run ahead of the
	// verifiers' clocks; every key lives that much longer than the
	// callers' times ask. Zero means DefaultClockSkew.
	ClockSkew time.Duration
	// AssumeNoEviction, set by an operator who vouches that the server's
	// maxmemory-policy is noeviction, lets Open proceed where CONFIG GET
	// is disabled (managed services). A policy CONFIG GET does report is
	// still checked.
	AssumeNoEviction bool
	// Replicas, when positive, makes every write wait (Redis WAIT) until
	// that many replicas acknowledge it, and fail (the caller refuses)
	// when fewer do within ReplicaTimeout.
	Replicas int
	// ReplicaTimeout bounds that wait; zero means DefaultReplicaTimeout.
	ReplicaTimeout time.Duration
}

// Store is a [guard.Store] in Redis, for a fleet of verifiers.
type Store struct {
	rdb      *redis.Client
	prefix   string
	skew     time.Duration
	replicas int
	wait     time.Duration
}

var _ guard.Store = (*Store)(nil)

// Open connects to the Redis server at url (redis://[user:pass@]host:port[/db]
// or rediss:// for TLS) and checks that it will not evict keys: it
// refuses a server whose maxmemory-policy is not noeviction, and one that
// does not say (CONFIG GET disabled) unless o.AssumeNoEviction is set.
func Open(ctx context.Context, url string, o Options) (*Store, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		// The URL may hold a password: never echo it.
		return nil, errors.New("redisstore: the store address is not a redis:// or rediss:// URL")
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if len(o.Prefix) > maxPrefixBytes || strings.ContainsAny(o.Prefix, "{} \t\r\n") {
		return nil, fmt.Errorf("redisstore: key prefix must be at most %d bytes without braces or spaces", maxPrefixBytes)
	}
	if o.ClockSkew < 0 || o.Replicas < 0 || o.ReplicaTimeout < 0 {
		return nil, errors.New("redisstore: negative clock skew, replicas or replica timeout")
	}
	if o.ClockSkew == 0 {
		o.ClockSkew = DefaultClockSkew
	}
	if o.ReplicaTimeout == 0 {
		o.ReplicaTimeout = DefaultReplicaTimeout
	}
	// Honour the caller's deadline: a store that does not answer refuses
	// by then, rather than after the client's own timeouts and retries.
	opt.ContextTimeoutEnabled = true
	opt.DisableIdentity = true
	// RESP2: the store needs no push notifications, and a RESP3 client
	// checks for them before every command.
	opt.Protocol = 2
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	s := &Store{rdb: redis.NewClient(opt), prefix: o.Prefix, skew: o.ClockSkew,
		replicas: o.Replicas, wait: o.ReplicaTimeout}
	if err := s.checkServer(ctx, o.AssumeNoEviction); err != nil {
		s.rdb.Close()
		return nil, err
	}
	return s, nil
}

// checkServer refuses a server that could evict keys: an evicted counter
// or replay key would let a spent budget or a used proof be used again.
func (s *Store) checkServer(ctx context.Context, assume bool) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return guard.Failed("redisstore", "open", err)
	}
	cfg, err := s.rdb.ConfigGet(ctx, "maxmemory-policy").Result()
	var reply redis.Error
	switch {
	case err != nil && !errors.As(err, &reply):
		return guard.Failed("redisstore", "open", err)
	case err != nil || cfg["maxmemory-policy"] == "":
		if assume {
			return nil
		}
		why := "it returned nothing"
		if err != nil {
			why = err.Error()
		}
		return fmt.Errorf("redisstore: cannot read the server's maxmemory-policy (CONFIG GET: %s); "+
			"if it is noeviction, say so with the assume-no-eviction option", why)
	case cfg["maxmemory-policy"] != "noeviction":
		return fmt.Errorf("redisstore: the server's maxmemory-policy is %q: it may evict budget counters "+
			"and used proofs, letting them be spent again; set maxmemory-policy noeviction", cfg["maxmemory-policy"])
	}
	return nil
}

// Close implements [guard.Store].
func (s *Store) Close() error {
	if err := s.rdb.Close(); err != nil {
		return guard.Failed("redisstore", "close", err)
	}
	return nil
}
