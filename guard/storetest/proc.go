package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/verify"
)

// The environment of a worker process.
const (
	workerEnv = "STORETEST_WORKER" // the worker's mode; set only in workers
	spendEnv  = "STORETEST_SPEND"  // the Spend, as Spend.String writes it
)

// Spend is a family that worker processes spend together: a two-block
// chain with a calls and a total budget set by block 0 and a calls budget
// set by block 1. Every admission costs Cost micros of USD.
type Spend struct {
	Calls0, Total0, Cost, Calls1 uint64
}

// Budgets returns the three budgets.
func (s Spend) Budgets() []verify.Budget {
	c := Chain("procs", 2)
	return []verify.Budget{Calls(c, 0, s.Calls0), Total(c, 0, s.Total0, "USD"), Calls(c, 1, s.Calls1)}
}

// Admission returns one admission of the family at now.
func (s Spend) Admission(now time.Time) guard.Admission {
	a := Admission(Chain("procs", 2), now, s.Budgets()...)
	a.Cost = Cost(s.Cost, "USD")
	return a
}

// Min returns how many admissions the smallest budget allows.
func (s Spend) Min() uint64 { return min(s.Calls0, s.Total0/s.Cost, s.Calls1) }

func (s Spend) String() string { return fmt.Sprint(s.Calls0, s.Total0, s.Cost, s.Calls1) }

func parseSpend(text string) (Spend, error) {
	var s Spend
	_, err := fmt.Sscan(text, &s.Calls0, &s.Total0, &s.Cost, &s.Calls1)
	return s, err
}

// Worker is the body of a worker process. When this process is a worker
// (started by StartWorker) it opens a store with open, spends the family
// until a budget refuses, printing "admitted" after each admission
// ("repeated" too when a retry found it admitted) and "done" at the end, and exits; otherwise it returns at once. A failed
// Admit is retried with the same request id, so a store that restarts in
// the middle charges each admission once. Call it from a test the worker
// is started to run (StartWorker runs ^TestHelperProcess$).
func Worker(open func(context.Context) (guard.Store, error)) {
	switch os.Getenv(workerEnv) {
	case "":
		return
	case "discharge":
		dischargeWorker(open) // exits
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(2)
	}
	spend, err := parseSpend(os.Getenv(spendEnv))
	if err != nil {
		fail(err)
	}
	s, err := open(context.Background())
	for deadline := time.Now().Add(time.Minute); err != nil && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond) // the store may be restarting
		s, err = open(context.Background())
	}
	if err != nil {
		fail(err)
	}
	for {
		v, err := admitRetrying(s, spend.Admission(time.Now()))
		if err != nil {
			fail(err)
		}
		if !v.Admitted {
			if v.Reason != guard.Exhausted {
				fail(fmt.Errorf("refused: %+v", v))
			}
			break
		}
		fmt.Println("admitted")
		if v.Repeated {
			// The first try was admitted but its reply lost: the retry
			// got its verdict and charged nothing again.
			fmt.Println("repeated")
		}
	}
	s.Close()
	fmt.Println("done")
	os.Exit(0)
}

// admitRetrying admits a, retrying with the same request id on errors for
// up to a minute.
func admitRetrying(s guard.Store, a guard.Admission) (guard.Verdict, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		v, err := s.Admit(ctx, a)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// StartWorker starts this test binary again as a worker spending s, with
// env added to its environment, and returns it with the lines it prints.
// The test binary must call Worker from TestHelperProcess.
func StartWorker(t *testing.T, s Spend, env ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), workerEnv+"=spend", spendEnv+"="+s.String()), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A test that fails early must not leave workers spending (and
	// holding its output open) after it.
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 1<<12)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return cmd, lines
}

// Count reads a worker's lines to the end and returns what it reported:
// admissions, admissions whose first reply was lost (counted once, as
// admissions), and whether it ended with "done".
func Count(lines <-chan string) (admitted, repeated uint64, done bool) {
	return CountEach(lines, func() {})
}

// CountEach is Count, calling admit after each admission as it is read,
// so that a test can act on the workers' progress.
func CountEach(lines <-chan string, admit func()) (admitted, repeated uint64, done bool) {
	for l := range lines {
		switch {
		case l == "admitted":
			admitted++
			admit()
		case l == "repeated":
			repeated++
		case l == "done":
			done = true
		case strings.HasPrefix(l, "=== RUN"), strings.HasPrefix(l, "---"), l == "PASS", l == "FAIL":
		default:
			fmt.Fprintln(os.Stderr, "worker said:", l)
		}
	}
	return admitted, repeated, done
}

// SpendInProcesses runs n workers spending s at once and returns how many
// admissions they made in all. Each must end with "done".
func SpendInProcesses(t *testing.T, n int, s Spend, env ...string) uint64 {
	t.Helper()
	type result struct {
		admitted uint64
		done     bool
		err      error
	}
	results := make(chan result, n)
	for range n {
		cmd, lines := StartWorker(t, s, env...)
		go func() {
			a, _, d := Count(lines)
			results <- result{a, d, cmd.Wait()}
		}()
	}
	var total uint64
	for range n {
		r := <-results
		if r.err != nil || !r.done {
			t.Fatalf("worker ended with %v, done %v", r.err, r.done)
		}
		total += r.admitted
	}
	return total
}
