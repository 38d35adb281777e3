// Package storebench measures what each guard.Store costs over its bare
// engine doing the same writes: the memory store over a map under a lock,
// SQLite (synchronous FULL and NORMAL) over one bare transaction of
// equivalent upserts, Redis over a bare EVALSHA round trip of a trivial
// script. Run it with
//
//	TICKETTOOL_STORE_BENCH=1 TICKETTOOL_REDIS_ADDR=127.0.0.1:6390 \
//	  go test -run Overhead -v ./store/storebench
//
// Store and bare engine alternate in short batches (A B B A ...) so that
// both see the same load on a shared machine; the report gives each
// one's admissions per second and the median and range of the per-pair
// time ratios.
package storebench
