// WebCrypto through globalThis.crypto.subtle only: SHA-256, HMAC-SHA256,
// Ed25519 (spec/FORMAT.md §4.2) and ECDSA P-256 (§4.4).

import { b64urlEncode, concat } from "./bytes.js";

// WebCrypto takes any ArrayBufferView; the DOM types want one over an ArrayBuffer.
const bs = (b: Uint8Array): BufferSource => b as unknown as BufferSource;

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error("tickettool: globalThis.crypto.subtle is not available");
  return s;
}

export async function sha256(b: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest("SHA-256", bs(b)));
}

// The group order L of Ed25519, little-endian.
const ED_L = Uint8Array.from([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
]);

function scalarBelowL(s: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    if (s[i] !== ED_L[i]) return s[i] < ED_L[i];
  }
  return false;
}

/**
 * Ed25519 verification as FORMAT.md §4.2 states it: a 64-byte signature
 * whose S is below L, cofactorless. A key WebCrypto cannot import makes
 * the signature invalid.
 */
export async function ed25519Verify(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): Promise<boolean> {
  if (pub.length !== 32 || sig.length !== 64 || !scalarBelowL(sig.subarray(32))) return false;
  try {
    const k = await subtle().importKey("raw", bs(pub), { name: "Ed25519" }, false, ["verify"]);
    return await subtle().verify({ name: "Ed25519" }, k, bs(sig), bs(msg));
  } catch {
    return false;
  }
}

const PKCS8_ED25519 = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);

/** The public key of an RFC 8032 seed, base64url. */
export async function ed25519PublicFromSeed(seed: Uint8Array): Promise<string> {
  const k = await subtle().importKey("pkcs8", bs(concat(PKCS8_ED25519, seed)), { name: "Ed25519" }, true, ["sign"]);
  const jwk = await subtle().exportKey("jwk", k);
  return jwk.x ?? "";
}

// P-256 domain parameters.
const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
export const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

export function bigFromBytes(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

/** Whether (x, y) is a point of P-256 (coordinates below p, on the curve). */
export function onP256(x: Uint8Array, y: Uint8Array): boolean {
  const X = bigFromBytes(x), Y = bigFromBytes(y);
  if (X >= P || Y >= P) return false;
  return (Y * Y - (X * X * X - 3n * X + B)) % P === 0n;
}

/**
 * ES256 verification (RFC 7518 §3.4): r ‖ s, 1 ≤ r, s < n, and with lowS
 * also s ≤ ⌊n/2⌋ (a rebinding signature, FORMAT.md §4.4).
 */
export async function es256Verify(x: Uint8Array, y: Uint8Array, msg: Uint8Array, sig: Uint8Array, lowS: boolean): Promise<boolean> {
  if (sig.length !== 64) return false;
  const r = bigFromBytes(sig.subarray(0, 32)), s = bigFromBytes(sig.subarray(32));
  if (r < 1n || r >= N || s < 1n || s >= N || (lowS && s > N / 2n)) return false;
  try {
    const k = await subtle().importKey("jwk", { kty: "EC", crv: "P-256", x: b64urlEncode(x), y: b64urlEncode(y), ext: true },
      { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    return await subtle().verify({ name: "ECDSA", hash: "SHA-256" }, k, bs(sig), bs(msg));
  } catch {
    return false;
  }
}
