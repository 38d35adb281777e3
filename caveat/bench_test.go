package caveat_test

import (
	"fmt"
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

var benchSizes = []int{1, 10, 100, 1000}

// benchCheck runs Check on an allowed request against a caveat of n
// entries; the request hits the middle entry.
func benchCheck(b *testing.B, build func(n int) (caveat.Caveat, *caveat.Request)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c, r := build(n)
			if err := c.Evaluate(r, now, 0); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = c.Evaluate(r, now, 0)
			}
		})
	}
}

func must(c caveat.Caveat, err error) caveat.Caveat {
	if err != nil {
		panic(err)
	}
	return c
}

// Qualified request, unqualified entry: the slower of the two lookups.
func BenchmarkCheckTools(b *testing.B) {
	benchCheck(b, func(n int) (caveat.Caveat, *caveat.Request) {
		e := make([]string, n)
		for i := range e {
			e[i] = fmt.Sprintf("tool_%04d", i)
		}
		return must(caveat.NewTools(e...)), &caveat.Request{Tool: fmt.Sprintf("workspace/tool_%04d", n/2)}
	})
}

// A path six segments deep under the middle prefix.
func BenchmarkCheckPaths(b *testing.B) {
	benchCheck(b, func(n int) (caveat.Caveat, *caveat.Request) {
		e := make([]string, n)
		for i := range e {
			e[i] = fmt.Sprintf("src/pkg%04d/", i)
		}
		return must(caveat.NewPaths(e...)), &caveat.Request{Paths: []string{fmt.Sprintf("src/pkg%04d/a/b/c/d/file.go", n/2)}}
	})
}

// Half exact hosts, half wildcards; the request host matches a wildcard
// two labels down.
func BenchmarkCheckHosts(b *testing.B) {
	benchCheck(b, func(n int) (caveat.Caveat, *caveat.Request) {
		e := make([]string, n)
		for i := range e {
			if i%2 == 0 {
				e[i] = fmt.Sprintf("*.w%04d.example.org", i)
			} else {
				e[i] = fmt.Sprintf("h%04d.example.com", i)
			}
		}
		return must(caveat.NewHosts(e...)), &caveat.Request{URLs: []string{fmt.Sprintf("https://a.b.w%04d.example.org/v1/items?q=1", n/2&^1)}}
	})
}

func BenchmarkScopeAddPaths(b *testing.B) {
	e := make([]string, 1000)
	for i := range e {
		e[i] = fmt.Sprintf("src/pkg%04d/", i)
	}
	p := must(caveat.NewPaths("src/"))
	c := must(caveat.NewPaths(e...))
	b.ReportAllocs()
	for b.Loop() {
		var s caveat.Scope
		_ = s.Add(0, p)
		if err := s.Add(1, c); err != nil {
			b.Fatal(err)
		}
	}
}
