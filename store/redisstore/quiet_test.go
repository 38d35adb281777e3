package redisstore

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// quiet drops go-redis's own log lines (dial failures while a test's
// server is down): the tests look at the errors the store returns.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quiet{}) }
