package verify_test

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// verifyBoth decides text both ways, VerifyText into d (reused) and Verify
// of token.Parse, and fails if the decisions or errors differ.
func verifyBoth(t interface {
	Helper()
	Fatalf(string, ...any)
}, d *verify.Decision, text string, req *caveat.Request, keys *token.Keyring, opts *verify.Options) {
	t.Helper()
	var want verify.Decision
	tk, errW := token.Parse(text)
	if errW == nil {
		want, errW = verify.Verify(tk, req, keys, t0, opts)
	}
	errG := verify.VerifyText(d, text, req, keys, t0, opts)
	if (errG == nil) != (errW == nil) || errG != nil && errG.Error() != errW.Error() {
		t.Fatalf("%q: VerifyText error %v, Verify %v", text, errG, errW)
	}
	if got := verify.Public(*d); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: VerifyText decided\n%+v\nVerify\n%+v", text, got, want)
	}
}

// TestPropVerifyTextMatchesVerify: VerifyText, reusing one Decision
// across tickets of both modes, decides every ticket (attenuated, with a
// byte changed or not) exactly as Verify decides its token.Parse.
func TestPropVerifyTextMatchesVerify(t *testing.T) {
	var d verify.Decision
	rapid.Check(t, func(t *rapid.T) {
		key, keys := genKey(t)
		tk, err := token.Mint(key, genCaveats(t, "b0"), nil)
		if err != nil {
			t.Skip()
		}
		if rapid.Bool().Draw(t, "attenuate?") {
			if a, err := tk.Attenuate(genCaveats(t, "b1"), nil); err == nil {
				tk = a
			}
		}
		tk, dis := genApprovals(t, tk)
		text := tk.String()
		if rapid.Bool().Draw(t, "flip?") {
			i := rapid.IntRange(0, len(text)-1).Draw(t, "at")
			b := []byte(text)
			b[i] = rapid.SampledFrom([]byte("AZaz09-_=.\n")).Draw(t, "to")
			text = string(b)
		}
		var opts *verify.Options
		if rapid.Bool().Draw(t, "policy?") {
			opts = &verify.Options{RequireExpiry: true, MaxLifetime: time.Hour}
		}
		r := genRequest(t)
		r.Discharges = dis
		verifyBoth(t, &d, text, r, keys, opts)
	})
}

// TestVerifyTextDetaches: a decision VerifyText made stays the same after
// the pooled memory it read is cleared and reused: its intent, budget
// currency and refusal reasons, which are views of that memory during the
// call, are copies; its ids are in its own storage.
func TestVerifyTextDetaches(t *testing.T) {
	tk, keys := benchTicket(t, key.HMACSHA256)
	root, err := fixedkey.Signing(key.HMACSHA256, "root", "bench")
	if err != nil {
		t.Fatal(err)
	}
	intent, _ := caveat.NewIntent("refactor the discount rules")
	total, _ := caveat.NewTotal(caveat.Amount{Micros: 5000000, Currency: "EUR"})
	paths, _ := caveat.NewPaths("src/discount/")
	tk, err = tk.Attenuate([]caveat.Caveat{total}, nil)
	if err != nil {
		t.Fatal(err)
	}
	withIntent, err := token.Mint(root, []caveat.Caveat{intent, total, paths}, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, otherKeys := benchTicket(t, key.Ed25519)
	refused := &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"src/refund/x.go"}}
	for _, c := range []struct {
		name string
		text string
		keys *token.Keyring
		req  *caveat.Request
	}{
		{"budget", tk.String(), keys, benchReq},
		{"intent", withIntent.String(), keys, benchReq},
		{"refused", withIntent.String(), keys, refused},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d, scratch verify.Decision
			verifyBoth(t, &d, c.text, c.req, c.keys, nil)
			want := cloneDecision(verify.Public(d))
			for range 3 { // the pool hands the cleared memory to the next call
				verifyBoth(t, &scratch, other.String(), benchReq, otherKeys, nil)
			}
			if got := verify.Public(d); !reflect.DeepEqual(got, want) {
				t.Fatalf("the decision changed after its memory was reused:\n%+v\nwas\n%+v", got, want)
			}
		})
	}
}

// cloneDecision copies every string and slice of d.
func cloneDecision(d verify.Decision) verify.Decision {
	d.Intent = strings.Clone(d.Intent)
	d.FamilyID = append([]byte(nil), d.FamilyID...)
	d.BlockIDs = append([]token.BlockID(nil), d.BlockIDs...)
	d.Budgets = append([]verify.Budget(nil), d.Budgets...)
	for i := range d.Budgets {
		d.Budgets[i].Total.Currency = strings.Clone(d.Budgets[i].Total.Currency)
	}
	d.Refusals = append([]verify.Refusal(nil), d.Refusals...)
	for i := range d.Refusals {
		d.Refusals[i].Reason = strings.Clone(d.Refusals[i].Reason)
	}
	return d
}

var modes = []key.Alg{key.HMACSHA256, key.Ed25519}

// FuzzVerifyTextMatchesVerify holds VerifyText to Verify's decision on
// any text and any discharges (comma-separated texts), reusing one
// Decision.
func FuzzVerifyTextMatchesVerify(f *testing.F) {
	lead, _, _ := approvers(f)
	for _, mode := range []int{0, 1} {
		tk, _ := benchTicket(f, modes[mode])
		f.Add(tk.String(), byte(mode), "")
		s, _ := tk.Seal()
		f.Add(s.String(), byte(mode), "")
		f.Add(token.Prefix+base64.RawURLEncoding.EncodeToString(tk.Encode()[:40]), byte(mode), "")
		a := must(tk.Attenuate([]caveat.Caveat{approval(f, lead, 1, "room 4")}, nil))
		d := discharge(f, lead, a, a.Len()-1, "until=10m", "calls=1")
		f.Add(a.String(), byte(mode), d.String())
		f.Add(a.String(), byte(mode), d.String()+","+d.String())
		f.Add(tk.String(), byte(mode), d.String())
	}
	f.Add("tkt1_", byte(0), "dis1_")
	f.Add("tkt1_oA", byte(1), "")
	var keyrings [2]*token.Keyring
	for i, m := range modes {
		_, keyrings[i] = benchTicket(f, m)
	}
	var d verify.Decision
	f.Fuzz(func(t *testing.T, text string, mode byte, dis string) {
		r := *benchReq
		if dis != "" {
			r.Discharges = strings.Split(dis, ",")
		}
		verifyBoth(t, &d, text, &r, keyrings[int(mode)%2], nil)
	})
}

// TestVerifyTextConcurrent: goroutines that share the pool, each with its
// own Decision, never see each other's tickets (run it with -race).
func TestVerifyTextConcurrent(t *testing.T) {
	type c struct {
		text string
		keys *token.Keyring
		want verify.Decision
	}
	var cases []c
	for _, m := range modes {
		tk, keys := benchTicket(t, m)
		want, err := verify.Verify(tk, benchReq, keys, t0, nil)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c{tk.String(), keys, cloneDecision(want)})
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Go(func() {
			var d verify.Decision
			for i := range 50 {
				c := cases[(g+i)%len(cases)]
				if err := verify.VerifyText(&d, c.text, benchReq, c.keys, t0, nil); err != nil || !reflect.DeepEqual(verify.Public(d), c.want) {
					errs <- fmt.Sprintf("goroutine %d, call %d: %v %+v", g, i, err, d)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
