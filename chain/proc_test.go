package chain

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

// TestHelperProcess is not a test: it is the child process of the
// multi-process tests (re-executed test binary). It appends to the log
// CHAIN_LOG with the key in CHAIN_KEY and prints "ack <seq> <hex record>"
// after each append returns.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("CHAIN_HELPER")
	if mode == "" {
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
	n, _ := strconv.Atoi(os.Getenv("CHAIN_N"))
	l, err := Open(os.Getenv("CHAIN_LOG"), sk, testOrigin)
	if err != nil {
		fail(err)
	}
	var out sync.Mutex
	appends := func(g int) {
		for i := 0; n <= 0 || i < n; i++ {
			r, err := l.Append(Record{Kind: KindAllowed, Tool: "t", Note: fmt.Sprintf("%s-%d-%d", os.Getenv("CHAIN_ID"), g, i)}, time.Now())
			if err != nil {
				fail(err)
			}
			b, _ := r.Marshal()
			out.Lock()
			fmt.Printf("ack %d %x\n", r.Seq, b)
			out.Unlock()
		}
	}
	if mode == "group" { // 8 goroutines share the Log: group commit
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() { appends(g) })
		}
		wg.Wait()
	} else {
		appends(0)
	}
	l.Close()
	os.Exit(0)
}

// helper starts a child appending n records (forever when n is 0) and
// returns it with a channel of the acknowledged records' lines.
func helper(t *testing.T, mode, logPath, keyPath, id string, n int) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CHAIN_HELPER="+mode, "CHAIN_LOG="+logPath, "CHAIN_KEY="+keyPath,
		"CHAIN_ID="+id, "CHAIN_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, out)
	}()
	return cmd, lines
}

// parseAck turns an ack line into the record it acknowledges.
func parseAck(t *testing.T, line string) Record {
	t.Helper()
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ack" {
		t.Fatalf("bad helper line %q", line)
	}
	b, err := hex.DecodeString(f[2])
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(b)
	if err != nil || strconv.FormatUint(r.Seq, 10) != f[1] {
		t.Fatalf("bad ack %q: %v", line, err)
	}
	return r
}

func keyFile(t *testing.T, sk *key.Signing) string {
	p := filepath.Join(t.TempDir(), "receipt.key")
	if err := sk.WriteFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	sk := seedKey(t, "k", 5)
	kp := keyFile(t, sk)
	l, p := openTemp(t, sk)
	const procs, each = 3, 15
	acked := make(chan Record, procs*each*2)
	var wg sync.WaitGroup
	for i := range procs {
		cmd, lines := helper(t, "append", p, kp, fmt.Sprintf("p%d", i), each)
		wg.Go(func() {
			for line := range lines {
				acked <- parseAck(t, line)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("helper %d: %v", i, err)
			}
		})
	}
	// This process appends at the same time, from two goroutines.
	for g := range 2 {
		wg.Go(func() {
			for i := range each {
				r, err := l.Append(Record{Kind: KindAllowed, Note: fmt.Sprintf("g%d-%d", g, i)}, time.Now())
				if err != nil {
					t.Error(err)
					return
				}
				acked <- r
			}
		})
	}
	wg.Wait()
	close(acked)
	if len(acked) != (procs+2)*each {
		t.Fatalf("%d acknowledgements, want %d", len(acked), (procs+2)*each)
	}
	checkAcked(t, p, sk, acked, (procs+2)*each)
}

// TestCrashKill kills a writer with SIGKILL while it appends, a dozen
// times: every acknowledged record must survive, a torn tail (if a kill
// leaves one) must be reported and repaired, and the chain must verify.
// The kernel finishes a write(2) a kill interrupts, so a kill rarely tears
// a record: the file states a torn or failed write leaves are built by
// TestRepairTornTail and TestRepairEveryCut, and made by a real failing
// write in TestFailedWrite.
func TestCrashKill(t *testing.T) { crashKill(t, "append") }

// TestCrashKillGroup is TestCrashKill with 8 goroutines appending through
// one Log, so that most records are written by group commit: a record is
// acknowledged (its Append returned) only once the fsync that covers it
// is done, so every acknowledged record survives the kill.
func TestCrashKillGroup(t *testing.T) { crashKill(t, "group") }

func crashKill(t *testing.T, mode string) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	sk := hmacKey(t, "k", 5)
	kp := keyFile(t, sk)
	p := filepath.Join(t.TempDir(), "receipts.cbor")
	all := make(chan Record, 1<<16)
	torn := 0
	for iter := range 12 {
		cmd, lines := helper(t, mode, p, kp, fmt.Sprintf("c%d", iter), 0)
		// Let it append a few records, then kill it at a varying moment
		// (with group commit, later, as batches form).
		got, killed, later := 0, false, 0
		if mode == "group" {
			later = 4 * iter
		}
		for line := range lines {
			all <- parseAck(t, line)
			if got++; got == 3+iter%3+later {
				time.Sleep(time.Duration(iter%4) * 700 * time.Microsecond)
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
				break
			}
		}
		for line := range lines {
			all <- parseAck(t, line)
		}
		if err := cmd.Wait(); !killed {
			t.Fatalf("iteration %d: the writer stopped before it was killed: %v", iter, err)
		}
		_, err := Verify(p, sk.Verifying(), testOrigin)
		if errors.Is(err, ErrTorn) {
			torn++
			d, rerr := Repair(p, sk.Verifying(), testOrigin)
			be := err.(*BreakError)
			if rerr != nil || d.Offset != be.Offset || d.Bytes <= 0 {
				t.Fatalf("iteration %d: Repair %+v %v after %v", iter, d, rerr, err)
			}
		} else if err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
	}
	close(all)
	t.Logf("%d acknowledged records, %d torn tails repaired", len(all), torn)
	checkAcked(t, p, sk, all, -1)
}
