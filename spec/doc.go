// Package spec holds the ticket format's specification (FORMAT.md,
// CAVEATS.md), its test vectors (vectors/tickets.json), the receipt log's
// test vectors (vectors/receipts.json, for ../chain/FORMAT.md) and the Go
// runner of both. Regenerate the vectors with `go generate ./spec`; a test
// fails if that would change any byte.
package spec

//go:generate go run ./internal/genvectors
