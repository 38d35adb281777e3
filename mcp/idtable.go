package mcp

import "sync"

// idTable is a bounded set of request ids of one direction. When it holds
// maxTracked ids, adding one forgets the oldest.
type idTable struct {
	mu    sync.Mutex
	seq   uint64
	ids   map[idKey]uint64 // id -> when it was added
	order []tableEntry     // in the order added; stale entries are skipped
}

type tableEntry struct {
	key idKey
	seq uint64
}

func newIDTable() *idTable { return &idTable{ids: map[idKey]uint64{}} }

func (t *idTable) add(k idKey) {
	if k == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	t.ids[k] = t.seq
	t.order = append(t.order, tableEntry{k, t.seq})
	for len(t.ids) > maxTracked {
		e := t.order[0]
		t.order = t.order[1:]
		if t.ids[e.key] == e.seq {
			delete(t.ids, e.key)
		}
	}
	if len(t.order) > 2*maxTracked { // drop stale entries
		live := make([]tableEntry, 0, len(t.ids))
		for _, e := range t.order {
			if t.ids[e.key] == e.seq {
				live = append(live, e)
			}
		}
		t.order = live
	}
}

// take removes k and reports whether it was there.
func (t *idTable) take(k idKey) bool {
	if k == "" {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.ids[k]
	delete(t.ids, k)
	return ok
}
