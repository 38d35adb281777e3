package token_test

import (
	"encoding/hex"
	"testing"
	"testing/cryptotest"

	"github.com/tickettool/tickettool/key"
)

// Golden bytes: if one of these fails, the encoding changed. Change the
// code, not the bytes (spec/FORMAT.md and every issued ticket depend on
// them). The keys are fixed (internal/fixedkey); the ticket id and next
// keys are the ChaCha8 stream of testing/cryptotest.SetGlobalRandom seed 1,
// which Mint and Attenuate read from crypto/rand directly.
func TestGoldenBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		key  *key.Signing
		want string
	}{
		{"hmac", hmacKey(t, "root-h"), goldenHMAC},
		{"ed25519", edKey(t, "root-e"), goldenEd25519},
	} {
		cryptotest.SetGlobalRandom(t, 1)
		tk := chainOf(t, c.key, []string{"tools=read_file", "until=2026-11-30T13:00:00Z"}, []string{"paths=src/"})
		if got := hex.EncodeToString(tk.Encode()); got != c.want {
			t.Errorf("%s encoding changed:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

const goldenHMAC = "a3010102825831a401010266726f6f742d6803506ae6783f4fbde91b6eb88b73a48ed24704a2018169726561645f66696c65061a6b0d73504aa104a10381647372632f04582033fc3e02f4fb6cfa4a045ed0a0c9dbb3b34bd812698cd9d8147c0f5e0f736a00"
const goldenEd25519 = "a4010102825854a501020266726f6f742d6503506ae6783f4fbde91b6eb88b73a48ed24704a2018169726561645f66696c65061a6b0d73500558207baabb0544b7bd2fd25854a8620585ecb16a7f9e974fe7ea7049be483eec8122582da204a10381647372632f0558206bf19b4ab249f886c926781f76142d870b548fb6391e702647065651a596fb4a03825840171f743998e4e03f8c1fcb23f7503807cb5373e416125d006ae8c88dc12afe6362338a734ce016822b9f75ea5281defdd2626ffd5b4fc8aa93972e64b9e8fb045840cd7060894290cbb059a4ff05bd899076dbedc918f581fce56a9733986af2b9e4c7d1e6c7e8508ca5b5b7254f6619de357f4a9dfa5051ae03024c75e396336302045820fef55fe0e125750aa608d5e20ffc2d1212f4a4654efa2bd11e3a9e97e2e230e1"
