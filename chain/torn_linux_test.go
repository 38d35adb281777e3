//go:build linux

package chain

import (
	"errors"
	"fmt"
	"github.com/tickettool/tickettool/key"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFailedWriteChild is not a test: it is the child process of
// TestFailedWrite. It appends two records to CHAIN_LOG, then lowers
// RLIMIT_FSIZE to CHAIN_ROOM bytes past the end of the file, so that the
// kernel cuts the next write short and fails it with EFBIG (SIGXFSZ is
// ignored), and appends again: a batch of CHAIN_N records, then one more
// record. It prints "ack <seq> <hex>" for every acknowledged record and
// "err <append> <error>" for every refused append.
func TestFailedWriteChild(t *testing.T) {
	if os.Getenv("CHAIN_HELPER") != "efbig" {
		return
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	sk, err := key.ReadSigningFile(os.Getenv("CHAIN_KEY"))
	if err != nil {
		fail(err)
	}
	l, err := Open(os.Getenv("CHAIN_LOG"), sk, testOrigin)
	if err != nil {
		fail(err)
	}
	ack := func(rs []Record) {
		for _, r := range rs {
			b, _ := r.Marshal()
			fmt.Printf("ack %d %x\n", r.Seq, b)
		}
	}
	for i := range 2 {
		r, err := l.Append(Record{Kind: KindAllowed, Tool: "t", Note: fmt.Sprint("before-", i)}, t0)
		if err != nil {
			fail(err)
		}
		ack([]Record{r})
	}
	fi, err := os.Stat(os.Getenv("CHAIN_LOG"))
	if err != nil {
		fail(err)
	}
	room, _ := strconv.Atoi(os.Getenv("CHAIN_ROOM"))
	n, _ := strconv.Atoi(os.Getenv("CHAIN_N"))
	signal.Ignore(syscall.SIGXFSZ)
	lim := uint64(fi.Size()) + uint64(room)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
		fail(err)
	}
	batch := make([]Record, n)
	for i := range batch {
		batch[i] = Record{Kind: KindAllowed, Tool: "t", Note: fmt.Sprint("batch-", i)}
	}
	for i, rs := range [][]Record{batch, {{Kind: KindAllowed, Tool: "t", Note: "after"}}} {
		out, err := l.AppendBatch(rs, t0.Add(time.Second))
		if err != nil {
			fmt.Printf("err %d %s\n", i, strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		ack(out)
	}
	l.Close()
	os.Exit(0)
}

// TestFailedWrite: a write the kernel cuts short and fails (a full disk,
// a file size limit) acknowledges no record of its batch, leaves a torn
// tail that the same Log then refuses to append after (ErrTorn) until
// Repair, and loses no acknowledged record. The write really fails: the
// child process runs under RLIMIT_FSIZE. Each room is a limit that lets
// the write stop at a different place: inside the first record of the
// batch, at a record boundary inside it, or inside a later record.
func TestFailedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	sk := hmacKey(t, "k", 5)
	kp := keyFile(t, sk)
	for _, c := range []struct{ n, room int }{{1, 1}, {1, 40}, {3, 60}, {3, 250}} {
		name := fmt.Sprintf("batch of %d, %d bytes of room", c.n, c.room)
		p := filepath.Join(t.TempDir(), "receipts.cbor")
		cmd := exec.Command(os.Args[0], "-test.run=^TestFailedWriteChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CHAIN_HELPER=efbig", "CHAIN_LOG="+p, "CHAIN_KEY="+kp,
			"CHAIN_N="+strconv.Itoa(c.n), "CHAIN_ROOM="+strconv.Itoa(c.room))
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: child: %v", name, err)
		}
		var lines []string
		acked := make(chan Record, 16)
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if strings.HasPrefix(line, "ack ") {
				acked <- parseAck(t, line)
			} else {
				lines = append(lines, line)
			}
		}
		close(acked)
		if len(acked) != 2 || len(lines) != 2 ||
			!strings.HasPrefix(lines[0], "err 0 chain: append to log") || !strings.Contains(lines[0], "file too large") ||
			!strings.HasPrefix(lines[1], "err 1 ") || !strings.Contains(lines[1], ErrTorn.Error()) {
			t.Fatalf("%s: child printed\n%s\nwant 2 acknowledgements, the batch refused (file too large), then ErrTorn", name, out)
		}
		size := fileSize(t, p)
		_, err = Verify(p, sk.Verifying(), testOrigin)
		be := (*BreakError)(nil)
		if !errors.As(err, &be) || !be.Torn || be.Offset >= size {
			t.Fatalf("%s: Verify: %v, want a torn tail", name, err)
		}
		d, err := Repair(p, sk.Verifying(), testOrigin)
		if err != nil || d != (Torn{Offset: be.Offset, Bytes: size - be.Offset}) {
			t.Fatalf("%s: Repair = %+v, %v after %v", name, d, err, be)
		}
		checkAcked(t, p, sk, acked, -1)
		l, err := Open(p, sk, testOrigin)
		if err != nil {
			t.Fatalf("%s: Open after Repair: %v", name, err)
		}
		_, err = l.Append(Record{Kind: KindAllowed, Tool: "t"}, t0.Add(time.Minute))
		l.Close()
		if _, verr := Verify(p, sk.Verifying(), testOrigin); err != nil || verr != nil {
			t.Fatalf("%s: Append after Repair: %v, then Verify: %v", name, err, verr)
		}
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
