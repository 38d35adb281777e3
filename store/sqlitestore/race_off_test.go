//go:build !race

package sqlitestore

// modelChecks is how many random runs TestModel makes.
const modelChecks = "100"
