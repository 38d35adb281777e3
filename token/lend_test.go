package token

import (
	"bytes"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
)

// TestPooledMemoryHoldsNoTag: after a chain check of a sealed HMAC ticket
// (whose last tag is a secret the seal hides), neither the pooled hmac
// state nor the arena the ticket was lent in holds any tag of the chain,
// nor, once returned, the ticket's bytes.
func TestPooledMemoryHoldsNoTag(t *testing.T) {
	root, err := fixedkey.Signing(key.HMACSHA256, "root", "zero")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := caveat.ParseAll([]string{"tools=a", "paths=src/"}, time.Time{})
	tk, err := Mint(root, cs[:1], nil)
	if err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Attenuate(cs[1:], nil); err != nil {
		t.Fatal(err)
	}
	if tk, err = tk.Seal(); err != nil {
		t.Fatal(err)
	}
	// Every tag of the chain, computed the way Mint does.
	var tags [][]byte
	k, _ := root.Verifying().MAC(append([]byte(labelHMACKey), tk.blocks[0].TicketID...))
	for i := range tk.blocks {
		k = hmacAppend(k[:], tk.blocks[i].raw)
		tags = append(tags, bytes.Clone(k[:]))
	}

	m := getMAC()
	m.tag(tags[0], bLabelHMACBlock, []byte("block"), nil)
	putMAC(m)
	for _, b := range [][]byte{m.buf[:], m.sum[:], m.out[:]} {
		if !allZero(b) {
			t.Fatal("putMAC leaves a key or tag in the pooled hmac state")
		}
	}

	v, err := parseLent(tk.String())
	if err != nil {
		t.Fatal(err)
	}
	lt := v.(*Ticket)
	a := lt.lent
	if _, err := lt.VerifyChain(root.Verifying()); err != nil {
		t.Fatal(err)
	}
	data := a.data[:cap(a.data)]
	a.release()
	if !allZero(data) {
		t.Fatal("a returned arena keeps the ticket's bytes")
	}
	for i, tag := range tags {
		for _, b := range [][]byte{data, idBytes(a.ids)} {
			if bytes.Contains(b, tag) {
				t.Fatalf("the arena keeps tag %d", i)
			}
		}
	}
	if a.t.text != "" || a.t.blocks != nil {
		t.Fatal("a returned arena keeps the ticket")
	}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func idBytes(ids []BlockID) []byte {
	var b []byte
	for _, id := range ids {
		b = append(b, id[:]...)
	}
	return b
}
