package token_test

import (
	"testing"

	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

func benchModes(b *testing.B, f func(b *testing.B, key *key.Signing)) {
	for name, key := range bothKeys(b) {
		b.Run(name, func(b *testing.B) { b.ReportAllocs(); f(b, key) })
	}
}

func BenchmarkMint(b *testing.B) {
	benchModes(b, func(b *testing.B, key *key.Signing) {
		cs := cavs(b, scenario[0]...)
		for b.Loop() {
			if _, err := token.Mint(key, cs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkAttenuate(b *testing.B) {
	benchModes(b, func(b *testing.B, key *key.Signing) {
		tk := chainOf(b, key, scenario[0])
		cs := cavs(b, scenario[1]...)
		for b.Loop() {
			if _, err := tk.Attenuate(cs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	benchModes(b, func(b *testing.B, key *key.Signing) {
		tk := chainOf(b, key, scenario...)
		for b.Loop() {
			_ = tk.Encode()
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	benchModes(b, func(b *testing.B, key *key.Signing) {
		data := chainOf(b, key, scenario...).Encode()
		for b.Loop() {
			if _, err := token.Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkVerifyChain(b *testing.B) {
	benchModes(b, func(b *testing.B, key *key.Signing) {
		tk := chainOf(b, key, scenario...)
		vk := key.Verifying()
		for b.Loop() {
			if _, err := tk.VerifyChain(vk); err != nil {
				b.Fatal(err)
			}
		}
	})
}
