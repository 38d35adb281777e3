package fuzz

import (
	"reflect"
	"testing"

	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// verifyOptions is the verifier's policy in FuzzVerify: the zero policy,
// the most permissive one, so that no policy rule can hide a forgery.
var verifyOptions = &verify.Options{}

// FuzzVerify runs token.Parse and verify.Verify end to end against the
// fixed keyring (one HMAC and one Ed25519 root key, from detrand), the
// fixed clock, and the request of one of verifyCases (chosen by which).
// Properties:
//   - Verify never errors for a parsed ticket and is deterministic: the
//     same text parsed twice, and the same ticket verified twice, give
//     reflect.DeepEqual decisions;
//   - a decision is consistent: Allowed iff no refusals iff Err() == nil;
//     no refusal reveals the root secret; an allowed ticket is also sound
//     and current (verify.Validate allows it);
//   - only tickets we minted are allowed: an allowed text is one of the
//     generated valid tickets (the fuzzer cannot forge one);
//   - the case's valid ticket with any single byte changed (the fuzzer's
//     off, x), in its CBOR form or in its text form, is never allowed, and
//     unchanged it is allowed;
//   - allocation stays within the stated bound (sampled).
func FuzzVerify(f *testing.F) {
	known := knownTexts()
	type fixed struct {
		data []byte
		text string
	}
	var valid []fixed
	for _, c := range verifyCases {
		if d := mustVerify(c.tk, c); !d.Allowed {
			f.Fatalf("case %s is refused: %v", c.name, d.Refusals)
		}
		valid = append(valid, fixed{c.tk.Encode(), c.tk.String()})
	}
	f.Fuzz(func(t *testing.T, text string, which byte, off uint32, x byte) {
		i := int(which) % len(verifyCases)
		c := verifyCases[i]
		sampleAllocs(t, "token.Parse+verify.Verify", len(text), func() {
			if tk, err := token.Parse(text); err == nil {
				verify.Verify(tk, c.req, keys.ring, now, verifyOptions)
			}
		})
		if tk, err := token.Parse(text); err == nil {
			d := mustVerify(tk, c)
			checkDecision(t, d)
			if d2 := mustVerify(tk, c); !reflect.DeepEqual(d, d2) {
				t.Fatalf("Verify is not deterministic on one ticket:\n%+v\n%+v", d, d2)
			}
			if d3 := mustVerify(must(token.Parse(text)), c); !reflect.DeepEqual(d, d3) {
				t.Fatalf("Verify is not deterministic across parses:\n%+v\n%+v", d, d3)
			}
			if d.Allowed {
				if !known[text] {
					t.Fatalf("allowed a ticket nobody minted: %q", text)
				}
				if v, err := verify.Validate(tk, keys.ring, now, verifyOptions); err != nil || !v.Allowed {
					t.Fatalf("Verify allows a ticket that Validate refuses: %v %v", v.Refusals, err)
				}
			}
		}

		v := valid[i]
		data, changed := mutate(v.data, uint64(off), x)
		if tk, err := token.Decode(data); err == nil {
			d := mustVerify(tk, c)
			checkDecision(t, d)
			if d.Allowed == changed {
				t.Fatalf("case %s, CBOR byte %d ^ %#x: allowed=%v %v", c.name, int(off)%len(v.data), x, d.Allowed, d.Refusals)
			}
		} else if !changed {
			t.Fatalf("case %s: valid ticket does not decode: %v", c.name, err)
		}
		txt, changed := mutate([]byte(v.text), uint64(off), x)
		if tk, err := token.Parse(string(txt)); err == nil {
			d := mustVerify(tk, c)
			if d.Allowed == changed {
				t.Fatalf("case %s, text byte %d ^ %#x: allowed=%v %v", c.name, int(off)%len(v.text), x, d.Allowed, d.Refusals)
			}
		} else if !changed {
			t.Fatalf("case %s: valid text does not parse: %v", c.name, err)
		}
	})
}

func mustVerify(tk *token.Ticket, c verifyCase) verify.Decision {
	d, err := verify.Verify(tk, c.req, keys.ring, now, verifyOptions)
	if err != nil {
		panic("Verify errors on a parsed ticket: " + err.Error())
	}
	return d
}

func checkDecision(t *testing.T, d verify.Decision) {
	t.Helper()
	if d.Allowed != (len(d.Refusals) == 0) || d.Allowed != (d.Err() == nil) {
		t.Fatalf("inconsistent decision: allowed=%v refusals=%v err=%v", d.Allowed, d.Refusals, d.Err())
	}
	for _, r := range d.Refusals {
		if r.Reason == "" || r.String() == "" {
			t.Fatalf("refusal without a reason: %+v", r)
		}
		fatalIfSecret(t, "refusal", r.String())
	}
	if d.Allowed && len(d.BlockIDs) == 0 {
		t.Fatal("allowed without block ids")
	}
}
