package chain

import (
	"slices"
	"time"
)

// entry is one record on its way into the log.
type entry struct {
	r   Record
	now time.Time
	out Record // as written, when err is nil
	err error

	wake chan bool // Append waits here: true to lead, false when written (or not)
}

// Append appends one record and returns it as written, once it is durable
// (written and fsynced); see [Log.AppendBatch] for the fields the log sets.
//
// Concurrent Appends on one Log share writes and fsyncs (group commit):
// the first caller leads, writing its record and every record queued
// behind it (at most [MaxBatch]) in one write and one fsync, while the
// others wait; when it is done it hands the lead to the first caller that
// queued during its fsync, and wakes those it wrote. Each caller returns
// only after the fsync that covers its record, so a nil error still means
// the record is durable. A record's time is its caller's now (raised to
// the record before it, as for AppendBatch), and a record that cannot be
// written (malformed, a clock too far behind) fails only its own call.
func (l *Log) Append(r Record, now time.Time) (Record, error) {
	e := &entry{r: r, now: now, wake: make(chan bool, 1)}
	l.qmu.Lock()
	l.queue = append(l.queue, e)
	lead := !l.leading
	l.leading = true
	l.qmu.Unlock()
	if lead || <-e.wake {
		l.lead()
	}
	if e.err != nil {
		return Record{}, e.err
	}
	return e.out, nil
}

// lead writes the first entries of the queue, the leader's own first,
// hands the lead on once they are written (the next batch is written
// while this one syncs), and wakes the entries it wrote once they are
// durable.
func (l *Log) lead() {
	l.qmu.Lock()
	n := min(len(l.queue), MaxBatch)
	batch := slices.Clone(l.queue[:n])
	l.queue = slices.Clone(l.queue[n:])
	l.qmu.Unlock()

	err := l.commit(batch, false, l.handOff)
	for _, e := range batch {
		if e.err == nil {
			e.err = err
		}
	}
	for _, e := range batch[1:] {
		e.wake <- false
	}
}

// handOff makes the first Append queued the leader, or ends the lead when
// none is.
func (l *Log) handOff() {
	l.qmu.Lock()
	defer l.qmu.Unlock()
	if len(l.queue) > 0 {
		l.queue[0].wake <- true
	} else {
		l.leading = false
	}
}
