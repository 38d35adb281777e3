//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tickettool/tickettool/token"
)

// readFileWithin runs readDischargeFile in a goroutine and fails the test
// if it has not returned within a few seconds (a FIFO blocks os.Open for
// ever without O_NONBLOCK).
func readFileWithin(t *testing.T, p *Proxy, path string) map[string]*token.Discharge {
	t.Helper()
	pool := map[string]*token.Discharge{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.readDischargeFile(path, pool)
	}()
	select {
	case <-done:
		return pool
	case <-time.After(5 * time.Second):
		// Unblock the reader so the test binary can exit.
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatalf("reading %s blocked", filepath.Base(path))
		return nil
	}
}

// TestDischargeFileKinds: a file of the discharge directory is read only
// when it is a regular file reached without a symbolic link: a FIFO does
// not block the call (it is skipped at once, as when it is swapped in
// after ReadDir), a symbolic link is not followed; a file with a line too
// long for a discharge is skipped whole, and logged, instead of silently
// ending at that line; a file too long is skipped.
func TestDischargeFileKinds(t *testing.T) {
	p, tk, dir, lg := approvalProxy(t)
	dis := approve(t, tk, untilC(t, 10*time.Minute))

	fifo := filepath.Join(dir, "fifo.dis")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if pool := readFileWithin(t, p, fifo); len(pool) != 0 {
		t.Fatalf("fifo: %d discharges", len(pool))
	}
	if !strings.Contains(lg.String(), "discharge file fifo.dis: skipped: not a regular file") {
		t.Fatalf("fifo not logged: %s", lg.String())
	}

	outside := filepath.Join(t.TempDir(), "elsewhere.dis")
	if err := os.WriteFile(outside, []byte(dis+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.dis")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if pool := readFileWithin(t, p, link); len(pool) != 0 {
		t.Fatalf("symbolic link followed: %d discharges", len(pool))
	}

	long := filepath.Join(dir, "long.dis")
	text := dis + "\n" + strings.Repeat("A", token.MaxDischargeTextBytes+10) + "\n" + dis + "\n"
	if err := os.WriteFile(long, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if pool := readFileWithin(t, p, long); len(pool) != 0 {
		t.Fatalf("file with a too-long line: %d discharges", len(pool))
	}
	if !strings.Contains(lg.String(), "discharge file long.dis: skipped: line 2: longer than a discharge") {
		t.Fatalf("too-long line not logged: %s", lg.String())
	}

	big := filepath.Join(dir, "big.dis")
	text = dis + "\n" + strings.Repeat(" \n", maxDischargeFileBytes/2)
	if err := os.WriteFile(big, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if pool := readFileWithin(t, p, big); len(pool) != 0 {
		t.Fatalf("file over the bound: %d discharges", len(pool))
	}

	ok := filepath.Join(dir, "ok.dis")
	if err := os.WriteFile(ok, []byte(dis+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if pool := readFileWithin(t, p, ok); len(pool) != 1 {
		t.Fatalf("regular file: %d discharges, want 1", len(pool))
	}
}

// TestDischargeDirFIFORace: a file that is regular when the directory is
// listed and a FIFO when it is opened must not block readPool.
func TestDischargeDirFIFORace(t *testing.T) {
	p, _, dir, _ := approvalProxy(t)
	fifo := filepath.Join(dir, "f.tmp")
	reg := filepath.Join(dir, "r.tmp")
	target := filepath.Join(dir, "x.dis")
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.WriteFile(reg, []byte("junk\n"), 0o600)
			os.Rename(reg, target)
			syscall.Mkfifo(fifo, 0o600)
			os.Rename(fifo, target)
		}
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			p.readPool(nil, t0)
		}
	}()
	select {
	case <-done:
		close(stop)
		<-swapped
	case <-time.After(10 * time.Second):
		close(stop)
		<-swapped
		// Unblock a reader stuck on the FIFO so the test binary can exit.
		if f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("readPool blocked: a FIFO swapped in after ReadDir hangs the proxy")
	}
}
