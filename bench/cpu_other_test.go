//go:build !unix

package bench

import "time"

// processCPU is not available here: no cpu-ns/op metric is reported.
func processCPU() (time.Duration, bool) { return 0, false }
