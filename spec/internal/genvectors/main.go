// Command genvectors writes spec/vectors/tickets.json (run by
// `go generate ./spec` from the spec directory).
package main

import (
	"fmt"
	"os"

	"github.com/tickettool/tickettool/spec/internal/vecgen"
)

func main() {
	out, err := vecgen.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "genvectors:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("vectors/tickets.json", out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genvectors:", err)
		os.Exit(1)
	}
}
