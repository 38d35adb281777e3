package chain

import (
	"io"

	"github.com/tickettool/tickettool/key"
)

// VerifyOptions are the optional settings of [VerifyFile].
type VerifyOptions struct {
	// Checkpoint, when not nil, is a signed checkpoint the log must
	// match, as VerifyCheckpoint checks it.
	Checkpoint []byte

	// Progress, when not nil, is called after every record that
	// verified, with the number of records and of bytes verified so far.
	// It runs on the verifying goroutine, so it should return quickly.
	Progress func(records, bytes int64)
	// Each, when not nil, is called with every record once it has
	// verified (decoding, signature, sequence, link, time), in log order,
	// before Progress: a record that breaks the chain, and every record
	// after it, never reaches it. It is how a caller that shows a log
	// (e.g. "receipt report") sees exactly what the verification saw,
	// without checking anything itself. With a checkpoint, the records
	// reach Each before the log is compared with it: the error decides.
	// It runs on the verifying goroutine, so it should return quickly.
	Each func(index int64, rec Record)
}

// VerifyFile is [Verify], or [VerifyCheckpoint] when opts.Checkpoint is set,
// reporting its progress to opts.Progress.
func VerifyFile(path string, k *key.Verifying, origin string, opts VerifyOptions) (*Summary, error) {
	f, size, err := snapshot(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := io.NewSectionReader(f, 0, size)
	if opts.Checkpoint != nil {
		return verifyCheckpoint(r, opts.Checkpoint, k, origin, opts.Progress, opts.Each)
	}
	if err := checkVerifying(k); err != nil {
		return nil, err
	}
	if err := checkOrigin(origin); err != nil {
		return nil, err
	}
	v := newReplayer(k, origin)
	v.progress, v.each = opts.Progress, opts.Each
	return v.run(r)
}
