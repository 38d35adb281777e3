package redisstore

import "time"

// Limits and defaults. All numeric policy of the package lives here.
const (
	// DefaultPrefix starts every key when Options.Prefix is empty.
	DefaultPrefix = "tickettool:"

	// DefaultClockSkew is Options.ClockSkew when it is zero: how far the
	// Redis server's clock may run ahead of the verifiers' clocks.
	DefaultClockSkew = time.Minute

	// DefaultReplicaTimeout is Options.ReplicaTimeout when it is zero.
	DefaultReplicaTimeout = time.Second

	// maxPrefixBytes bounds Options.Prefix.
	maxPrefixBytes = 64
)
