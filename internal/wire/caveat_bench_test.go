package wire_test

import (
	"fmt"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

func mustCaveat(c caveat.Caveat, err error) caveat.Caveat {
	if err != nil {
		panic(err)
	}
	return c
}

func BenchmarkDecodeCaveatPaths(b *testing.B) {
	e := make([]string, 100)
	for i := range e {
		e[i] = fmt.Sprintf("src/pkg%04d/", i)
	}
	raw, _ := wire.EncodeCaveat(mustCaveat(caveat.NewPaths(e...)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wire.DecodeCaveat(caveat.Paths, raw); err != nil {
			b.Fatal(err)
		}
	}
}
