package token

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"pgregory.net/rapid"
)

func stdHMAC(key []byte, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

// TestMACRFC4231 checks the reusable-state HMAC against RFC 4231 §4 test
// cases 1–5 (6 and 7 use keys longer than one block, which chains never
// do; mac refuses them) and against crypto/hmac.
func TestMACRFC4231(t *testing.T) {
	raw, err := os.ReadFile("testdata/rfc4231_hmac_sha256.json")
	if err != nil {
		t.Fatal(err)
	}
	var vv struct {
		Tests []map[string]any `json:"tests"`
	}
	if err := json.Unmarshal(raw, &vv); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tc := range vv.Tests {
		key, _ := hex.DecodeString(tc["key"].(string))
		data, _ := hex.DecodeString(tc["data"].(string))
		w, _ := tc["hmac_sha256"].(string)
		if w == "" {
			w, _ = tc["hmac_sha256_trunc128"].(string)
		}
		want, _ := hex.DecodeString(w)
		if len(key) > shaBlockSize {
			continue
		}
		m := getMAC()
		got := m.tag(key, nil, data, nil)
		putMAC(m)
		n := len(want) // case 5 compares a truncated tag
		if !bytes.Equal(got[:n], want) {
			t.Errorf("case %v: got %x, want %x", tc["tc"], got[:n], want)
		}
		ran++
	}
	if ran < 5 {
		t.Fatalf("ran %d RFC 4231 cases, want 5", ran)
	}
}

// TestMACMatchesStdlib: for every key of at most one block and any label
// and message, mac agrees with crypto/hmac, also when its state is reused.
func TestMACMatchesStdlib(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := getMAC()
		defer putMAC(m)
		for range rapid.IntRange(1, 3).Draw(t, "rounds") {
			key := rapid.SliceOfN(rapid.Byte(), 0, shaBlockSize).Draw(t, "key")
			label := rapid.String().Draw(t, "label")
			a := rapid.SliceOf(rapid.Byte()).Draw(t, "a")
			b := rapid.SliceOf(rapid.Byte()).Draw(t, "b")
			got := m.tag(key, []byte(label), a, b)
			if want := stdHMAC(key, []byte(label), a, b); !bytes.Equal(got[:], want) {
				t.Fatalf("mac %x != crypto/hmac %x", got, want)
			}
		}
	})
}

// TestMACPathBoundary: mac hashes short messages from its buffer and longer
// ones through its hash states; both paths, and the lengths where one
// gives way to the other, agree with crypto/hmac.
func TestMACPathBoundary(t *testing.T) {
	key := bytes.Repeat([]byte{0x0b}, tagBytes)
	room := macBufBytes - shaBlockSize - len(bLabelHMACBlock)
	for _, n := range []int{0, 1, room - 1, room, room + 1, 2 * room, 4096} {
		for _, split := range []int{0, n / 2, n} {
			msg := bytes.Repeat([]byte{byte(n)}, n)
			m := getMAC()
			got := m.tag(key, bLabelHMACBlock, msg[:split], msg[split:])
			putMAC(m)
			if want := stdHMAC(key, bLabelHMACBlock, msg); !bytes.Equal(got[:], want) {
				t.Errorf("message of %d bytes split at %d: mac %x != crypto/hmac %x", n, split, got, want)
			}
		}
	}
}

func FuzzMACMatchesStdlib(f *testing.F) {
	f.Add([]byte("key"), []byte("message"))
	f.Add(bytes.Repeat([]byte{0xff}, 64), []byte{})
	f.Add([]byte{}, bytes.Repeat([]byte{0}, 200))
	f.Add([]byte("key"), bytes.Repeat([]byte{1}, macBufBytes)) // the long path
	f.Fuzz(func(t *testing.T, key, msg []byte) {
		if len(key) > shaBlockSize {
			key = key[:shaBlockSize]
		}
		m := getMAC()
		got := m.tag(key, bLabelHMACBlock, msg, nil)
		putMAC(m)
		if want := stdHMAC(key, []byte(labelHMACBlock), msg); !bytes.Equal(got[:], want) {
			t.Fatalf("mac %x != crypto/hmac %x", got, want)
		}
	})
}

func BenchmarkMACReused(b *testing.B) {
	key, msg := make([]byte, 32), make([]byte, 120)
	m := getMAC()
	b.ReportAllocs()
	for b.Loop() {
		m.tag(key, bLabelHMACBlock, msg, nil)
	}
}

func BenchmarkMACStdlibNew(b *testing.B) {
	key, msg := make([]byte, 32), make([]byte, 120)
	b.ReportAllocs()
	for b.Loop() {
		stdHMAC(key, []byte(labelHMACBlock), msg)
	}
}
