package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/secrettest"
	"github.com/tickettool/tickettool/key"
)

// TestWrongKeysNeverEcho passes real private keys (holder JWKs, root and
// HMAC key files, as files and as pasted text) everywhere a key or a
// caveat goes, right or wrong, and checks that neither stdout nor stderr
// holds any 8 bytes of a secret in any common encoding.
func TestWrongKeysNeverEcho(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", p("root.key"), "--kid", "root")
	tt(t, 0, "keygen", "--alg", "hmac", "--out", p("h.key"), "--kid", "h")
	tt(t, 0, "holder", "--alg", "eddsa", "--out", p("ed.jwk"))
	tt(t, 0, "holder", "--alg", "es256", "--out", p("ec.jwk"))
	ticket := tt(t, 0, "mint", "--key", p("root.key"), "tools=x", "ops=invoke,delegate", "until=1h")
	read := func(n string) string {
		b, err := os.ReadFile(p(n))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}

	var secrets [][]byte // raw secret bytes
	var texts []string   // secrets as they are written in the files
	for _, n := range []string{"ed.jwk", "ec.jwk"} {
		var jwk struct{ D string }
		if err := json.Unmarshal([]byte(read(n)), &jwk); err != nil || jwk.D == "" {
			t.Fatalf("%s: no d: %v", n, err)
		}
		d, err := base64.RawURLEncoding.DecodeString(jwk.D)
		if err != nil {
			t.Fatal(err)
		}
		secrets, texts = append(secrets, d), append(texts, jwk.D)
	}
	for _, n := range []string{"root.key", "h.key"} {
		k, err := key.ReadSigningFile(p(n))
		if err != nil {
			t.Fatal(err)
		}
		s := fixedkey.Secret(k)
		if k.Alg() == key.Ed25519 {
			s = s[:32] // the seed
		}
		text := read(n)
		secrets, texts = append(secrets, s), append(texts, text[strings.LastIndex(text, "+")+1:])
	}

	var cases [][]string
	for _, n := range []string{"ed.jwk", "ec.jwk", "root.key", "h.key"} {
		v := read(n)
		for _, kind := range []string{"holder", "tools", "paths", "hosts", "aud", "calls", "until", "cost", "depth", "nope"} {
			cases = append(cases,
				[]string{"mint", "--key", p("root.key"), "until=1h", "tools=x", kind + "=" + v},
				[]string{"attenuate", ticket, kind + "=" + v})
		}
		cases = append(cases,
			[]string{"mint", "--key", p("root.key"), "until=1h", v},
			[]string{"mint", "--key", p(n), "until=1h", "tools=x"},
			[]string{"mint", "--key", p("root.key"), "--bind", p(n), "until=1h", "tools=x"},
			[]string{"mint", "--key", p("root.key"), "--now", v, "until=1h", "tools=x"},
			[]string{"verify", "--key", p(n), ticket},
			[]string{"verify", "--key", p("root.key"), v},
			[]string{"inspect", v},
			[]string{"attenuate", "--bind", p("ed.jwk.pub"), "--holder-key", p(n), ticket, "tools=x"},
			[]string{"attenuate", v, "tools=x"},
			[]string{"keygen", "--alg", "hmac", "--out", p("new.key"), "--kid", v},
			[]string{"keygen", "--alg", v, "--out", p("new2.key")},
			[]string{"keygen", v},
			[]string{"holder", "--alg", v, "--out", p("new.jwk")},
			[]string{"keygen", "-y", p(n), "--out", p("x")},
			[]string{"keygen", "-y", p(n)}, // prints a public key, or refuses
			[]string{"mint", "--key", p("root.key"), "--no-expiry=" + v, "tools=x"},
			[]string{"mint", "--" + v},
			[]string{v},
			[]string{"help", v},
			[]string{"proof", "make", "--key", p(n), "--htm", "GET", "--htu", "https://a.example/"},
			[]string{"proof", "make", "--key", p("ed.jwk"), "--htm", v, "--htu", v},
			[]string{"receipt", "verify", "--key", p(n), p("no.log")},
			[]string{"verify", "--key", p("root.key"), "--receipts", p("r.log"), "--receipt-key", p(n), "--tool", "x", ticket},
		)
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		all := out.String() + errb.String()
		for i, s := range secrets {
			if f := secrettest.Find(all, s); f != "" {
				t.Errorf("%.80q: exit %d: output shows %q of a secret:\n%s", args, code, f, all)
			}
			if f := secrettest.FindString(all, texts[i]); f != "" {
				t.Errorf("%.80q: exit %d: output shows %q of a key file:\n%s", args, code, f, all)
			}
		}
	}
}
