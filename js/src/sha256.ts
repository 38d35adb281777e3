// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), synchronous.
//
// The HMAC chain of FORMAT.md §4.1 takes one HMAC per block and one
// SHA-256 per block id: through WebCrypto each is an asynchronous call
// (and a key import), which made an HMAC verify of four blocks about 70
// times slower than the Go verifier. These hashes are plain arithmetic on
// 32-bit words, with no table indexed by secret data and no branch on it,
// so they take the same time whatever the key; test/sha256.test.js holds
// them to WebCrypto's on random inputs.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const IV = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

const W = new Int32Array(64);

// Words are int32 throughout (an Int32Array, | 0 after each addition):
// V8 keeps them as small integers, where uint32 values past 2^31 would
// become heap numbers.
function compress(H: Int32Array, b: Uint8Array, off: number): void {
  for (let i = 0; i < 16; i++, off += 4) W[i] = (b[off] << 24) | (b[off + 1] << 16) | (b[off + 2] << 8) | b[off + 3];
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15], y = W[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H[0], bb = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let i = 0; i < 64; i++) {
    const w = W[i];
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + w) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & bb) ^ (a & c) ^ (bb & c))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = bb; bb = a; a = (t1 + t2) | 0;
  }
  H[0] = (H[0] + a) | 0; H[1] = (H[1] + bb) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
}

// One hashing state, reused: the functions below are synchronous and
// finish each hash before starting the next, and allocating typed arrays
// per hash cost more than the compression itself.
const H = new Int32Array(8);
const BUF = new Uint8Array(64);
let bufN = 0; // bytes in BUF
let total = 0; // bytes hashed

function reset(): void {
  H.set(IV);
  bufN = 0;
  total = 0;
}

function update(data: Uint8Array): void {
  let i = 0;
  total += data.length;
  if (bufN > 0) {
    while (bufN < 64 && i < data.length) BUF[bufN++] = data[i++];
    if (bufN < 64) return;
    compress(H, BUF, 0);
    bufN = 0;
  }
  for (; i + 64 <= data.length; i += 64) compress(H, data, i);
  while (i < data.length) BUF[bufN++] = data[i++];
}

function finish(out: Uint8Array): Uint8Array {
  const bits = total * 8;
  BUF[bufN++] = 0x80;
  if (bufN > 56) {
    BUF.fill(0, bufN);
    compress(H, BUF, 0);
    bufN = 0;
  }
  BUF.fill(0, bufN, 56);
  const hi = Math.floor(bits / 0x100000000), lo = bits >>> 0;
  BUF[56] = hi >>> 24; BUF[57] = hi >>> 16; BUF[58] = hi >>> 8; BUF[59] = hi;
  BUF[60] = lo >>> 24; BUF[61] = lo >>> 16; BUF[62] = lo >>> 8; BUF[63] = lo;
  compress(H, BUF, 0);
  for (let i = 0; i < 8; i++) {
    const w = H[i];
    out[i * 4] = w >>> 24; out[i * 4 + 1] = w >>> 16; out[i * 4 + 2] = w >>> 8; out[i * 4 + 3] = w;
  }
  return out;
}

/** SHA-256 of a ‖ b. */
export function sha256Sync(a: Uint8Array, b?: Uint8Array): Uint8Array {
  reset();
  update(a);
  if (b !== undefined) update(b);
  return finish(new Uint8Array(32));
}

const PAD = new Uint8Array(64);
const INNER = new Uint8Array(32);

/** HMAC-SHA256 (RFC 2104) of a ‖ b under key. */
export function hmacSync(key: Uint8Array, a: Uint8Array, b?: Uint8Array): Uint8Array {
  const k = key.length > 64 ? sha256Sync(key) : key;
  PAD.fill(0x36, k.length);
  for (let i = 0; i < k.length; i++) PAD[i] = k[i] ^ 0x36;
  reset();
  update(PAD);
  update(a);
  if (b !== undefined) update(b);
  finish(INNER);
  PAD.fill(0x5c, k.length);
  for (let i = 0; i < k.length; i++) PAD[i] = k[i] ^ 0x5c;
  reset();
  update(PAD);
  update(INNER);
  const out = finish(new Uint8Array(32));
  PAD.fill(0);
  return out;
}

/** An HMAC key whose two padded blocks are already hashed (RFC 2104). */
export interface HMACKey {
  inner: Int32Array;
  outer: Int32Array;
}

/** Prepares a key used for many HMACs: a keyring's root secret. */
export function hmacKey(key: Uint8Array): HMACKey {
  const k = key.length > 64 ? sha256Sync(key) : key;
  const state = (x: number): Int32Array => {
    PAD.fill(x, k.length);
    for (let i = 0; i < k.length; i++) PAD[i] = k[i] ^ x;
    const h = new Int32Array(IV);
    compress(h, PAD, 0);
    return h;
  };
  const out = { inner: state(0x36), outer: state(0x5c) };
  PAD.fill(0);
  return out;
}

/** HMAC-SHA256 of a ‖ b under a prepared key. */
export function hmacWith(k: HMACKey, a: Uint8Array, b?: Uint8Array): Uint8Array {
  H.set(k.inner);
  bufN = 0;
  total = 64;
  update(a);
  if (b !== undefined) update(b);
  finish(INNER);
  H.set(k.outer);
  bufN = 0;
  total = 64;
  update(INNER);
  return finish(new Uint8Array(32));
}
