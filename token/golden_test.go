package token_test

import (
	"encoding/hex"
	"testing"

	"github.com/tickettool/tickettool/token"
)

// Golden bytes: if one of these fails, the encoding changed. Change the
// code, not the bytes (spec/FORMAT.md and every issued ticket depend on
// them).
func TestGoldenBytes(t *testing.T) {
	for _, c := range []struct {
		name string
		key  *token.SigningKey
		want string
	}{
		{"hmac", hmacKey(t, "root-h"), goldenHMAC},
		{"ed25519", edKey(t, "root-e"), goldenEd25519},
	} {
		tk := chainOf(t, c.key, []string{"tools=read_file", "until=2026-11-30T13:00:00Z"}, []string{"paths=src/"})
		if got := hex.EncodeToString(tk.Encode()); got != c.want {
			t.Errorf("%s encoding changed:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

const goldenHMAC = "a3010102825831a401010266726f6f742d6803500d884587627bffe91c89a5d17452218804a2018169726561645f66696c65061a6b0d73504aa104a10381647372632f04582081d25a8aa35e2462ca17c2ba73739ceeb8efacceead8a941b7603000fccc06c8"
const goldenEd25519 = "a4010102825854a501020266726f6f742d6503500d884587627bffe91c89a5d17452218804a2018169726561645f66696c65061a6b0d7350055820aa874a6259047017d5fbc664355c61916664eca1e59ef7e8ef8dad6379f39447582da204a10381647372632f05582039a21c50b35923e9aa279597b39081742240e80dc9bbc91bd5af1cd329ea5a000382584017e0eddf30e4992403ca74805b213e499c3931f07f8e2f8d0a01c7316b74b6e880dfc3e9d7ff4570191cda8f57f124ff01483351781a6613496335cc9ad6130a5840a0035fcdf8837e96fbdcb3cc38bd69e030f38a377782274679b3ba71196625be216ec4de2ea544f6a240189c42ed656a3614187fec27d561baa69e5bcd10c900045820a66e0c0e8946aa8a4767afb7c64504655a61346fb965ce8cbb9ca186c647d27b"
