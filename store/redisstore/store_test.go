package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/guard/storetest"
)

var bg = context.Background()

// redisAddr returns the address of the real Redis server the integration
// tests use (TICKETTOOL_REDIS_ADDR). Without one they skip, except in CI
// (CI=true), where they fail: CI must run them.
func redisAddr(t testing.TB) string {
	addr := os.Getenv("TICKETTOOL_REDIS_ADDR")
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TICKETTOOL_REDIS_ADDR is not set: CI must run the Redis tests against a real server")
		}
		t.Skip("TICKETTOOL_REDIS_ADDR is not set: no real Redis server to test against")
	}
	return addr
}

// prefix returns a fresh key prefix, so tests sharing a server never see
// each other's keys.
func prefix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "tt-test-" + hex.EncodeToString(b) + ":"
}

// dropPrefix deletes every key under pre on the server at url when the
// test ends, so that tests leave a shared server as they found it.
func dropPrefix(t *testing.T, url, pre string) {
	t.Cleanup(func() {
		opt, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(opt)
		defer c.Close()
		iter := c.Scan(bg, 0, pre+"*", 1000).Iterator()
		for iter.Next(bg) {
			c.Del(bg, iter.Val())
		}
	})
}

// factory makes stores on the server at url, each under its own prefix.
func factory(url string, o Options) storetest.Factory {
	return func(t *testing.T) func(*testing.T) guard.Store {
		o := o
		o.Prefix = prefix()
		dropPrefix(t, url, o.Prefix)
		return func(t *testing.T) guard.Store {
			s, err := Open(bg, url, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
}

// miniFactory makes each store on its own miniredis, which has no CONFIG
// command: the option that vouches for the policy is needed.
func miniFactory(t *testing.T) func(*testing.T) guard.Store {
	m := miniredis.RunT(t)
	return factory("redis://"+m.Addr(), Options{AssumeNoEviction: true})(t)
}

func TestConformanceMiniredis(t *testing.T) { storetest.Run(t, miniFactory) }

func TestModelMiniredis(t *testing.T) { storetest.RunModel(t, miniFactory) }

func TestConformance(t *testing.T) {
	storetest.Run(t, factory("redis://"+redisAddr(t), Options{}))
}

func TestModel(t *testing.T) {
	storetest.RunModel(t, factory("redis://"+redisAddr(t), Options{}))
}
