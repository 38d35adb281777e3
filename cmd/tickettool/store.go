package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/redis/go-redis/v9"
	guardpkg "github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/store/redisstore"
	"github.com/tickettool/tickettool/store/sqlitestore"
)

// storeUsage documents --store LOCATION, in the usage of every command
// that takes it (verify, mcp, revoke, spent).
const storeUsage = `Store: where budgets, used DPoP proofs and revocations are kept.
  --store LOCATION  one of
    memory              this process only: forgotten when it exits
    redis://[USER:PASS@]HOST:PORT[/DB]
                        a Redis server (rediss:// for TLS) whose
                        maxmemory-policy is noeviction, shared by every
                        verifier using it, on any machine
    PATH                any other LOCATION: a SQLite file, shared by the
                        processes of this host (never on NFS or SMB); it is
                        created with mode 0600, and every missing directory
                        above it with mode 0700
  The default is $TICKETTOOL_STORE, else
  ${XDG_STATE_HOME:-$HOME/.local/state}/tickettool/store.db.
  A store that cannot be opened, or fails, refuses (exit status 1).
  Messages never show the user or password of a redis:// LOCATION, but
  every local user can read a --store flag with ps: put a URL holding a
  password in $TICKETTOOL_STORE instead.
`

// The environment variables that choose the default store.
const (
	envStore      = "TICKETTOOL_STORE"
	envStateHome  = "XDG_STATE_HOME"
	envHome       = "HOME"
	storeFileName = "store.db"
)

func init() {
	// go-redis logs dial failures on its own; the store's errors already
	// say what failed, once, on our terms.
	redis.SetLogger(quietRedis{})
}

// quietRedis drops go-redis's log lines.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

// storeFlag registers --store LOCATION on fs, defaulting to the
// environment's choice (defaultStore), and returns its value. The default
// -h shows is the location's name (storeName), never a password.
func storeFlag(fs *cmdFlags) *string {
	loc := defaultStore(os.Getenv)
	fs.Var(locationValue{&loc}, "store", "the store's `LOCATION`: memory, redis://HOST:PORT or a SQLite file PATH")
	return &loc
}

// locationValue is the flag.Value of --store: it shows its location by
// name only.
type locationValue struct{ p *string }

func (v locationValue) String() string {
	if v.p == nil {
		return ""
	}
	return storeName(*v.p)
}

func (v locationValue) Set(s string) error { *v.p = s; return nil }

// storeName returns how messages show location: a redis:// URL without
// its user, password, query or fragment, anything else as it is.
func storeName(location string) string {
	if !isRedis(location) {
		return location
	}
	u, err := url.Parse(location)
	if err != nil {
		return "(a redis URL that does not parse)"
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host + u.EscapedPath()
}

// isRedis reports whether location is meant as a redis:// or rediss:// URL.
func isRedis(location string) bool {
	lower := strings.ToLower(location)
	return strings.HasPrefix(lower, "redis:") || strings.HasPrefix(lower, "rediss:")
}

// defaultStore returns $TICKETTOOL_STORE, else store.db in the tickettool
// directory of the XDG state directory (an XDG_STATE_HOME that is not
// absolute is ignored, as the XDG spec says), or "" when neither it nor
// HOME is set.
func defaultStore(getenv func(string) string) string {
	if s := getenv(envStore); s != "" {
		return s
	}
	dir := getenv(envStateHome)
	if !filepath.IsAbs(dir) {
		home := getenv(envHome)
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "tickettool", storeFileName)
}

// openStore opens the store at location (see storeUsage). It returns the
// store and the name to show for it, which never holds a password. Its
// errors are *cliError: exit status 2 for a location that cannot be
// parsed, 1 for a store that cannot be opened (fail closed).
func openStore(ctx context.Context, location string) (guardpkg.Store, string, error) {
	switch {
	case location == "":
		return nil, "", fail(exitUsage, errors.New("no store location: HOME is not set"),
			"pass --store LOCATION (memory, redis://HOST:PORT or a file path) or set "+envStore)
	case location == "memory":
		return guardpkg.NewMemoryStore(), "memory", nil
	case isRedis(location):
		return openRedis(ctx, location)
	case strings.Contains(location, "://"):
		scheme, _, _ := strings.Cut(location, "://")
		return nil, "", fail(exitUsage, fmt.Errorf("store location: unknown scheme %q", oneLine(scheme)),
			"a store is memory, redis://HOST:PORT, rediss://HOST:PORT or a file path")
	}
	return openSQLite(ctx, location)
}

// openRedis opens a Redis store. Neither its errors nor the name it
// returns show the URL's user or password.
func openRedis(ctx context.Context, location string) (guardpkg.Store, string, error) {
	u, err := url.Parse(location)
	if err == nil {
		_, err = redis.ParseURL(location)
	}
	// go-redis reads redis:x and redis:// as localhost:6379: a typo
	// must not reach another server than the one meant.
	if err != nil || u.Opaque != "" || u.Host == "" {
		return nil, "", fail(exitUsage,
			errors.New("store location is not a valid redis:// or rediss:// URL (redis://[USER:PASS@]HOST:PORT[/DB])"))
	}
	name := storeName(location)
	s, err := redisstore.Open(ctx, location, redisstore.Options{})
	if err != nil {
		return nil, "", storeFailed(name, err,
			"check that the Redis server runs, is reachable, answers and accepts the credentials")
	}
	return s, name, nil
}

// openSQLite opens (creating if need be) the SQLite store in the file at
// path, first creating the missing directories above it.
func openSQLite(ctx context.Context, path string) (guardpkg.Store, string, error) {
	name := filepath.Clean(path)
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, storeDirMode); err != nil {
		return nil, "", fail(exitRefused, fmt.Errorf("store %s: cannot create its directory: %w", name, err),
			"pass --store with a path whose directory can be created, or set "+envStore)
	}
	// The wait for another process's write lock is bounded by the
	// command's store deadline (the context), not by a shorter timeout of
	// its own: under load a verify waits its turn rather than refusing.
	s, err := sqlitestore.Open(ctx, name, sqlitestore.Options{BusyTimeout: storeWait})
	if errors.Is(err, sqlitestore.ErrUnsafeFile) {
		return nil, "", storeFailed(name, err,
			"another local user could rewind this store and spend budgets again; keep the store in a directory only you can write")
	}
	if err != nil {
		return nil, "", storeFailed(name, err, "")
	}
	return s, name, nil
}

// storeFailed returns the exit-1 error of a store named name that failed:
// the call, or the change, must not happen. A store that did not answer
// in time says so, naming the time it was given.
func storeFailed(name string, err error, hint string) error {
	var locked *sqlitestore.LockedError
	switch {
	case errors.As(err, &locked):
		return fail(exitRefused, fmt.Errorf("store %s: %w", name, err),
			"another process kept the store file locked (a stuck or stopped tickettool?); the call was refused: try again, or find that process")
	case timedOut(err):
		return fail(exitRefused, fmt.Errorf("store %s: no answer within %v: %w", name, storeWait, err),
			"the store is unreachable, overloaded or locked by another process; the call was refused: try again once it answers")
	}
	return fail(exitRefused, fmt.Errorf("store %s: %w", name, err), hint)
}

// timedOut reports whether err is a deadline that passed: the context's,
// or a connection's set from it.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}

// storeWait is how long a command waits for its store: storeTimeout,
// shortened by the tests that make a store time out.
var storeWait = storeTimeout

// storeContext returns the context a command gives its store: it ends
// after storeWait.
func storeContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), storeWait)
}
