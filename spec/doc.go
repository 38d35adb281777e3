// Package spec holds the ticket format's specification (FORMAT.md,
// CAVEATS.md), its test vectors (vectors/tickets.json) and the Go runner of
// those vectors. Regenerate the vectors with `go generate ./spec`; a test
// fails if that would change any byte.
package spec

//go:generate go run ./internal/genvectors
