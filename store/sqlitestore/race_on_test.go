//go:build race

package sqlitestore

// modelChecks is how many random runs TestModel makes: fewer under the
// race detector, which slows the SQLite engine tenfold.
const modelChecks = "25"
