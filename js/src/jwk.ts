// Holder keys: the public JWKs of spec/FORMAT.md §4.4 (and §4.5 step 5)
// and their RFC 7638 thumbprints.

import { ascii, b64urlDecode, b64urlEncode } from "./bytes.js";
import { ed25519Verify, es256Verify, onP256, sha256 } from "./crypto.js";
import { type JSONValue, member } from "./json.js";
import { isSmallOrder } from "./smallorder.js";

/**
 * A holder key. algMember is the JWK's own `alg` member when it has one
 * (RFC 7517 §4.4): for an OKP key `EdDSA` or RFC 9864's `Ed25519`, the
 * same signatures under two names (FORMAT.md §4.4).
 */
export type HolderKey =
  | { kty: "EC"; algMember?: "ES256"; x: Uint8Array; y: Uint8Array }
  | { kty: "OKP"; algMember?: "EdDSA" | "Ed25519"; x: Uint8Array };

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k", "priv"];

function coordinate(v: JSONValue | undefined): Uint8Array | null {
  if (v === undefined || v.t !== "str") return null;
  const b = b64urlDecode(v.s, false);
  return b !== null && b.length === 32 ? b : null;
}

/** A public JWK by the rules of FORMAT.md §4.4, or null. */
export function parseJWK(v: JSONValue): HolderKey | null {
  if (v.t !== "obj") return null;
  for (const [name] of v.m) if (PRIVATE_MEMBERS.includes(name)) return null;
  const kty = member(v, "kty"), crv = member(v, "crv"), alg = member(v, "alg");
  const algIs = (...want: string[]) => alg === undefined || (alg.t === "str" && want.includes(alg.s));
  if (kty?.t !== "str" || crv?.t !== "str") return null;
  if (kty.s === "EC" && crv.s === "P-256" && algIs("ES256")) {
    const x = coordinate(member(v, "x")), y = coordinate(member(v, "y"));
    if (x === null || y === null || !onP256(x, y)) return null;
    return alg === undefined ? { kty: "EC", x, y } : { kty: "EC", algMember: "ES256", x, y };
  }
  if (kty.s === "OKP" && crv.s === "Ed25519" && algIs("EdDSA", "Ed25519")) {
    const x = coordinate(member(v, "x"));
    if (x === null || isSmallOrder(x)) return null;
    return alg?.t === "str" ? { kty: "OKP", algMember: alg.s as "EdDSA" | "Ed25519", x } : { kty: "OKP", x };
  }
  return null;
}

/** The RFC 7638 SHA-256 thumbprint, over the members re-encoded canonically. */
export async function thumbprint(k: HolderKey): Promise<Uint8Array> {
  const text = k.kty === "EC"
    ? `{"crv":"P-256","kty":"EC","x":"${b64urlEncode(k.x)}","y":"${b64urlEncode(k.y)}"}`
    : `{"crv":"Ed25519","kty":"OKP","x":"${b64urlEncode(k.x)}"}`;
  return sha256(ascii(text));
}

/** Verifies a signature by a holder key: EdDSA as FORMAT.md §4.2, ES256 with lowS as §4.4 asks. */
export function holderVerify(k: HolderKey, msg: Uint8Array, sig: Uint8Array, lowS: boolean): Promise<boolean> {
  return k.kty === "EC" ? es256Verify(k.x, k.y, msg, sig, lowS) : ed25519Verify(k.x, msg, sig);
}
