// Package bench compares tickettool with its peers (gopkg.in/macaroon.v2,
// github.com/superfly/macaroon and github.com/biscuit-auth/biscuit-go/v2) on
// one scenario: a root ticket with one resource caveat, attenuated with an
// expiry, an allowed-operations list and a path prefix, then encoded,
// decoded and verified against one request.
//
// Every ratio it reports comes from TestPairs (run with -pairs, see
// run.sh): A and B alternate in short batches in one process, A B B A,
// several groups, and the median ratio and the range are reported. The Benchmark functions remain for
// profiles and absolute times of one side.
//
// It is a module of its own so that the main module never depends on a
// competitor. Everything lives in the package's tests; see README.md for
// how to run them and what they measured.
package bench
