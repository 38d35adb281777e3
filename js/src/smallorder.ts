// The 14 encodings of Ed25519 points of small order (spec/FORMAT.md §4.2):
// y in {0, 1, the two of order 8, p-1, p, p+1}, each with the sign bit
// clear or set. Under such a key a universal signature verifies.

import { hex } from "./bytes.js";

const SMALL_ORDER_Y = [
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
];

/** Whether a 32-byte Ed25519 public key is one of the 14 small-order encodings. */
export function isSmallOrder(key: Uint8Array): boolean {
  if (key.length !== 32) return false;
  const clear = new Uint8Array(key);
  clear[31] &= 0x7f;
  return SMALL_ORDER_Y.includes(hex(clear));
}
