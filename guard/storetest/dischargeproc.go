package storetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// The environment of a discharge worker: the ticket and the discharge it
// presents, as text.
const (
	ticketEnv    = "STORETEST_TICKET"
	dischargeEnv = "STORETEST_DISCHARGE"
)

// dischargeRoot is the root key of the tickets the discharge workers
// verify: fixed, so that parent and worker hold the same key.
func dischargeRoot() (*key.Signing, *token.Keyring, error) {
	root, err := fixedkey.Signing(key.Ed25519, "storetest-root", "storetest discharge")
	if err != nil {
		return nil, nil, err
	}
	keys, err := token.NewKeyring(root.Verifying())
	return root, keys, err
}

// dischargeWorker is a worker process that runs one call through a
// [guard.Guard] on the store open gives: the ticket and discharge of its
// environment, on a request for tool "post". It prints "allowed" or
// "refused " and the first refusal, then exits.
func dischargeWorker(open func(context.Context) (guard.Store, error)) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(2)
	}
	_, keys, err := dischargeRoot()
	if err != nil {
		fail(err)
	}
	tk, err := token.Parse(os.Getenv(ticketEnv))
	if err != nil {
		fail(err)
	}
	s, err := open(context.Background())
	if err != nil {
		fail(err)
	}
	defer s.Close()
	g, err := guard.New(guard.Config{Keys: keys, Store: s})
	if err != nil {
		fail(err)
	}
	req := &caveat.Request{Tool: "post", Discharges: []string{os.Getenv(dischargeEnv)}}
	d, err := g.Verify(context.Background(), tk, req, time.Now())
	if err != nil {
		fail(err)
	}
	if d.Allowed {
		fmt.Println("allowed")
	} else {
		fmt.Println("refused", d.Refusals[0].String())
	}
	os.Exit(0)
}

// OneShotInProcesses mints a ticket with an approval caveat and a
// discharge of it with calls=1, and presents them in two worker processes,
// one after the other, each with its own guard on the store (env says
// where: the test binary's TestHelperProcess must call [Worker]). The
// first call is allowed; the second is refused: the discharge's budget,
// keyed by its id, is spent in the shared store.
func OneShotInProcesses(t *testing.T, env ...string) {
	t.Helper()
	root, _, err := dischargeRoot()
	if err != nil {
		t.Fatal(err)
	}
	lead, err := fixedkey.Signing(key.Ed25519, "pricing-lead", "storetest approver")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a := caveat.Approver{KeyID: lead.ID(), Nonce: [16]byte{1}}
	copy(a.Key[:], fixedkey.Public(lead.Verifying()))
	ap, err := caveat.NewApproval(a)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := caveat.NewTools("post")
	until, _ := caveat.NewUntil(now.Add(time.Hour))
	tk, err := token.Mint(root, []caveat.Caveat{tools, until, ap}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bind, err := tk.Binding(0)
	if err != nil {
		t.Fatal(err)
	}
	once, _ := caveat.NewCalls(1)
	dUntil, _ := caveat.NewUntil(now.Add(10 * time.Minute))
	x, err := token.Approve(lead, bind, []caveat.Caveat{once, dUntil}, now)
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, workerEnv+"=discharge", ticketEnv+"="+tk.String(), dischargeEnv+"="+x.String())
	for i, want := range []string{"allowed", "refused block 0 approval caveat calls: discharge: budget of 1 calls is spent"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), env...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
		var got string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "allowed") || strings.HasPrefix(l, "refused") {
				got = l
			}
		}
		if got != want {
			t.Fatalf("worker %d said %q, want %q", i, got, want)
		}
	}
}
