package key

import (
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

// TestKeyIDRuleAgreesWithCaveat: package caveat states the key-id rule
// again for approval caveats (it cannot import this package); both must
// accept and refuse exactly the same ids.
func TestKeyIDRuleAgreesWithCaveat(t *testing.T) {
	ids := []string{"", "k", "root-1", "a:b", "a/b.c_d~", "!", "~", strings.Repeat("k", MaxIDBytes),
		strings.Repeat("k", MaxIDBytes+1), "a b", "a+b", "+", "a\tb", "a\x7fb", "é", "a\x00", "\x21\x7e", "\x20", "\x7f"}
	for b := 0; b < 256; b++ {
		ids = append(ids, "a"+string(rune(b)), "a"+string([]byte{byte(b)}))
	}
	for _, id := range ids {
		want := checkID(id) == nil
		a := caveat.Approver{KeyID: id, Key: [32]byte{9}}
		_, err := caveat.NewApproval(a)
		if got := err == nil; got != want {
			t.Errorf("key id %q: package key accepts = %v, package caveat = %v (%v)", id, want, got, err)
		}
	}
}
