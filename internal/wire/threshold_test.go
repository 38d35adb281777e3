package wire

import (
	"bytes"
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

// TestThresholdValue: the threshold form of an approval (spec/FORMAT.md
// §5) decodes, the reference decoder agrees, and it re-encodes to itself.
func TestThresholdValue(t *testing.T) {
	raw := mustHexF(thresholdHex)
	c, err := DecodeCaveat(caveat.Approval, raw)
	if err != nil || c.Approver.Need != 2 || len(c.Approver.Members) != 2 || c.Approver.Members[1].KeyID != "b" {
		t.Fatalf("%v %+v", err, c.Approver)
	}
	if ref, err := decodeValueReference(caveat.Approval, raw); err != nil || !ref.Equal(c) {
		t.Fatalf("reference: %v %+v", err, ref.Approver)
	}
	if enc, err := EncodeCaveat(c); err != nil || !bytes.Equal(enc, raw) {
		t.Fatalf("re-encodes to %x (%v)", enc, err)
	}
}
