// Command genvectors writes spec/vectors/tickets.json and
// spec/vectors/receipts.json (run by `go generate ./spec` from the spec
// directory).
package main

import (
	"fmt"
	"os"

	"github.com/tickettool/tickettool/spec/internal/vecgen"
)

func main() {
	for _, v := range []struct {
		path string
		gen  func() ([]byte, error)
	}{
		{"vectors/tickets.json", vecgen.Generate},
		{"vectors/receipts.json", vecgen.GenerateReceipts},
	} {
		out, err := v.gen()
		if err == nil {
			err = os.WriteFile(v.path, out, 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "genvectors:", err)
			os.Exit(1)
		}
	}
}
