package redisstore

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// server is a redis-server process of the test's own, on a loopback port,
// with its data in a temporary directory.
type server struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	args []string
	cmd  *exec.Cmd
}

// startServer starts a redis-server of its own (the binary named by
// TICKETTOOL_REDIS_SERVER, else redis-server on PATH) with AOF on and
// extra arguments, and stops it when the test ends. Without a binary the
// test skips, or fails in CI.
func startServer(t testing.TB, args ...string) *server {
	bin := os.Getenv("TICKETTOOL_REDIS_SERVER")
	if bin == "" {
		bin, _ = exec.LookPath("redis-server")
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no redis-server binary: CI must run the Redis process tests")
		}
		t.Skip("no redis-server binary on PATH (or TICKETTOOL_REDIS_SERVER)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &server{t: t, bin: bin, dir: t.TempDir(), port: port, args: args}
	s.start()
	t.Cleanup(func() { s.kill() })
	return s
}

func (s *server) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *server) url() string { return "redis://" + s.addr() }

func (s *server) start() {
	s.t.Helper()
	args := append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--appendonly", "yes", "--save", "", "--protected-mode", "yes"}, s.args...)
	s.cmd = exec.Command(s.bin, args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	// The server must answer with its own pid: another process may have
	// taken the port between the probe and the start.
	want := "process_id:" + strconv.Itoa(s.cmd.Process.Pid) + "\r\n"
	for {
		info, err := c.Info(context.Background(), "server").Result()
		if err == nil && strings.Contains(info, want) {
			return
		}
		if err == nil {
			err = errors.New("another process answers on its port")
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s did not start: %v", s.addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill stops the server with SIGKILL: no chance to flush anything.
func (s *server) kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
	s.cmd = nil
}

// client returns a plain client of the server, closed when the test ends.
func (s *server) client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr()})
	s.t.Cleanup(func() { c.Close() })
	return c
}
