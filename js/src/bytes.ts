// Byte helpers: hex, strict base64url (RFC 4648 §5), UTF-8 and comparison.

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_INDEX[B64.charCodeAt(i)] = i;

/**
 * Decodes unpadded base64url. With strict, non-zero unused bits in the last
 * character refuse the text (one byte string has exactly one text); without
 * it they are ignored (JWK members, FORMAT.md §4.4). Any character outside
 * the alphabet (padding and whitespace included) and a length of 1 mod 4
 * give null.
 */
export function b64urlDecode(s: string, strict = true): Uint8Array | null {
  const n = s.length;
  if (n % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((n * 3) / 4));
  const at = (i: number): number => {
    const c = s.charCodeAt(i);
    return c < 128 ? B64_INDEX[c] : -1;
  };
  let i = 0, o = 0;
  // Whole groups of four characters: 24 bits, three bytes.
  for (; i + 4 <= n; i += 4) {
    const a = at(i), b = at(i + 1), c = at(i + 2), d = at(i + 3);
    if ((a | b | c | d) < 0) return null;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 0xff;
    out[o++] = v & 0xff;
  }
  // The last two or three characters: one or two bytes and unused bits.
  if (i < n) {
    const a = at(i), b = at(i + 1), c = i + 2 < n ? at(i + 2) : 0;
    if ((a | b | c) < 0) return null;
    const v = (a << 18) | (b << 12) | (c << 6);
    out[o++] = v >> 16;
    if (i + 2 < n) out[o++] = (v >> 8) & 0xff;
    const unused = i + 2 < n ? v & 0xff : v & 0xffff;
    if (strict && unused !== 0) return null;
  }
  return out;
}

export function b64urlEncode(b: Uint8Array): string {
  let s = "";
  let i = 0;
  for (; i + 3 <= b.length; i += 3) {
    const v = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
  }
  if (b.length - i === 1) {
    const v = b[i] << 16;
    s += B64[v >> 18] + B64[(v >> 12) & 63];
  } else if (b.length - i === 2) {
    const v = (b[i] << 16) | (b[i + 1] << 8);
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63];
  }
  return s;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 §6 base32 without padding. */
export function base32(b: Uint8Array): string {
  let s = "", acc = 0, bits = 0;
  for (const x of b) {
    acc = (acc << 8) | x;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      s += BASE32[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) s += BASE32[(acc << (5 - bits)) & 31];
  return s;
}

// Each byte's two lowercase hex digits, as ASCII codes.
const HEX_CODES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  HEX_CODES[2 * i] = "0123456789abcdef".charCodeAt(i >> 4);
  HEX_CODES[2 * i + 1] = "0123456789abcdef".charCodeAt(i & 15);
}
const asciiDecoder = new TextDecoder();

export function hex(b: Uint8Array): string {
  const c = new Uint8Array(b.length * 2);
  for (let i = 0; i < b.length; i++) {
    c[2 * i] = HEX_CODES[2 * b[i]];
    c[2 * i + 1] = HEX_CODES[2 * b[i] + 1];
  }
  return asciiDecoder.decode(c);
}

/** Decodes lowercase or uppercase hex; null when it is not hex. */
export function unhex(s: string): Uint8Array | null {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) return null;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Compares secrets (tags, seals) without an early exit. */
export function equalConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}

/** The order of two strings' UTF-8 encodings, bytewise. */
export function compareUTF8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, code unit order is code point order, which is
    // UTF-8 byte order; past them it is not (U+E000 > U+10000 in UTF-16).
    if (x < 0xd800 && y < 0xd800) return x - y;
    return compareBytes(utf8(a), utf8(b));
  }
  return a.length - b.length;
}

/** Bytewise lexicographic order. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/** Decodes valid UTF-8 (no surrogates, no overlong forms); null otherwise. */
export function utf8Decode(b: Uint8Array): string | null {
  if (b.length <= 256) {
    // ASCII, the common case, without the decoder's overhead.
    let ascii = true;
    for (let i = 0; i < b.length; i++) {
      if (b[i] >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, b as unknown as number[]);
  }
  try {
    return utf8Strict.decode(b);
  } catch {
    return null;
  }
}

export function utf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

export function ascii(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}
