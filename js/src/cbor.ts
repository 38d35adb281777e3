// A strict reader of CBOR (RFC 8949) in core deterministic encoding
// (§4.2.1), with the refusals of spec/FORMAT.md §1 and the limits of §6.

import { compareBytes, utf8Decode } from "./bytes.js";
import { Malformed } from "./errors.js";

export type Item =
  | { t: 0; v: bigint } // unsigned integer
  | { t: 1; v: bigint } // negative integer: the value -1 - v
  | { t: 2; b: Uint8Array }
  | { t: 3; s: string; n: number } // n: its length in bytes
  | { t: 4; a: Item[] }
  | { t: 5; m: Array<[Item, Item]> }
  | { t: 7; v: boolean };

const MAX_DEPTH = 4;
const MAX_TEXT = 1024;
const MAX_ENTRIES = 1024n;

/** Decodes exactly one canonical item; anything else throws Malformed. */
export function decodeCBOR(b: Uint8Array, what: string): Item {
  if (b.length === 0) throw new Malformed(`${what}: empty`);
  const r = new Reader(b, what);
  const item = r.item(0);
  if (r.off !== b.length) throw new Malformed(`${what}: trailing bytes`);
  return item;
}

class Reader {
  off = 0;
  constructor(readonly b: Uint8Array, readonly what: string) {}

  fail(why: string): never {
    throw new Malformed(`${this.what}: ${why}`);
  }

  byte(): number {
    if (this.off >= this.b.length) this.fail("truncated");
    return this.b[this.off++];
  }

  // head reads the initial byte and its argument in shortest form.
  head(): [number, number, bigint] {
    const ib = this.byte();
    const major = ib >> 5, ai = ib & 31;
    if (major === 7) return [7, ai, 0n];
    if (ai < 24) return [major, ai, BigInt(ai)];
    let n: number;
    switch (ai) {
      case 24: n = 1; break;
      case 25: n = 2; break;
      case 26: n = 4; break;
      case 27: n = 8; break;
      case 31: this.fail("indefinite length");
      default: this.fail("reserved additional information");
    }
    if (this.off + n > this.b.length) this.fail("truncated");
    let hi = 0, lo = 0;
    for (let i = 0; i < n; i++) {
      hi = (hi * 256 + Math.floor(lo / 0x1000000)) >>> 0;
      lo = ((lo & 0xffffff) * 256 + this.b[this.off++]) >>> 0;
    }
    const min = n === 1 ? 24 : n === 2 ? 256 : n === 4 ? 65536 : 0;
    if (n === 8 ? hi === 0 : lo < min) this.fail("integer not in shortest form");
    return [major, ai, hi === 0 ? BigInt(lo) : (BigInt(hi) << 32n) | BigInt(lo)];
  }

  length(v: bigint): number {
    // A length past the end is refused before it becomes a number.
    if (v > 0xffffffffn || Number(v) > this.b.length - this.off) this.fail("truncated");
    return Number(v);
  }

  item(depth: number): Item {
    const start = this.off;
    const [major, ai, v] = this.head();
    switch (major) {
      case 0: return { t: 0, v };
      case 1: return { t: 1, v };
      case 2: {
        const n = this.length(v);
        const bytes = this.b.subarray(this.off, this.off + n);
        this.off += n;
        return { t: 2, b: bytes };
      }
      case 3: {
        const n = this.length(v);
        if (n > MAX_TEXT) this.fail("text string over 1024 bytes");
        const s = utf8Decode(this.b.subarray(this.off, this.off + n));
        if (s === null) this.fail("text string not valid UTF-8");
        this.off += n;
        return { t: 3, s, n };
      }
      case 4: {
        if (depth + 1 > MAX_DEPTH) this.fail("nested deeper than 4");
        if (v > MAX_ENTRIES) this.fail("more than 1024 entries");
        const n = this.length(v);
        const a: Item[] = [];
        for (let i = 0; i < n; i++) a.push(this.item(depth + 1));
        return { t: 4, a };
      }
      case 5: {
        if (depth + 1 > MAX_DEPTH) this.fail("nested deeper than 4");
        if (v > MAX_ENTRIES) this.fail("more than 1024 pairs");
        const n = this.length(v);
        const m: Array<[Item, Item]> = [];
        let prevKey: Uint8Array | null = null;
        for (let i = 0; i < n; i++) {
          const ks = this.off;
          const k = this.item(depth + 1);
          if (k.t !== 0 && k.t !== 1 && k.t !== 3) this.fail("map key neither integer nor text");
          const kb = this.b.subarray(ks, this.off);
          if (prevKey !== null && compareBytes(prevKey, kb) >= 0) this.fail("map keys out of order or repeated");
          prevKey = kb;
          m.push([k, this.item(depth + 1)]);
        }
        return { t: 5, m };
      }
      case 6:
        this.fail("tag");
      default:
        if (ai === 20) return { t: 7, v: false };
        if (ai === 21) return { t: 7, v: true };
        this.off = start;
        this.fail("float or simple value");
    }
  }
}
