// DPoP proofs of a bound ticket (RFC 9449 §4.3), checked in the order of
// spec/FORMAT.md §4.5.

import { ascii, b64urlDecode, b64urlEncode, equalBytes, utf8 } from "./bytes.js";
import { sha256 } from "./crypto.js";
import { type JSONValue, member, parseJSON } from "./json.js";
import { holderVerify, parseJWK, thumbprint } from "./jwk.js";
import { normalizeHTU } from "./uri.js";

/** What the verifier expects of a proof. */
export interface DPoPExpect {
  /** The proof (its compact JWS), when the request carries one. */
  proof?: string;
  htm: string;
  htu: string;
  /** The nonce the verifier demands, if any. */
  nonce?: string;
}

/** The proof window and allow-list (FORMAT.md §4.5 steps 4 and 10). */
export interface DPoPOptions {
  algorithms?: string[];
  maxAgeSeconds?: number;
  futureSkewSeconds?: number;
}

const MAX_PROOF = 8192;
const MAX_IAT = 253402300799;

function jsonPart(part: string): JSONValue | null {
  const b = b64urlDecode(part);
  if (b === null) return null;
  const v = parseJSON(b, "exact");
  return v !== null && v.t === "obj" ? v : null;
}

function str(v: JSONValue | undefined): string | undefined {
  return v?.t === "str" ? v.s : undefined;
}

// The proof algorithms FORMAT.md §4.5 step 4 supports: ES256, and EdDSA
// with an Ed25519 key under RFC 8037's name and RFC 9864's.
const SUPPORTED_ALGS = ["ES256", "EdDSA", "Ed25519"];

/**
 * Checks a proof; returns null when it passes, else why it does not (the
 * one dpop refusal), and the proof's jti through onJTI.
 */
export async function checkDPoP(e: DPoPExpect | undefined, ticketText: string, jkt: Uint8Array,
  nowMs: number, o: DPoPOptions, onJTI: (jti: string) => void): Promise<string | null> {
  const proof = e?.proof;
  if (e === undefined || proof === undefined || proof === "") return "the ticket is bound and the request carries no DPoP proof";
  if (utf8(proof).length > MAX_PROOF) return "proof over 8192 bytes";
  const parts = proof.split(".");
  if (parts.length !== 3) return "proof is not a compact JWS";
  const header = jsonPart(parts[0]);
  if (header === null) return "proof header is not one strict JSON object";
  const payloadBytes = b64urlDecode(parts[1]);
  const sig = b64urlDecode(parts[2]);
  if (payloadBytes === null || sig === null) return "proof is not canonical base64url";
  if (member(header, "crit") !== undefined || member(header, "b64") !== undefined) return "proof header has crit or b64";
  if (str(member(header, "typ")) !== "dpop+jwt") return "proof typ is not dpop+jwt";
  const alg = str(member(header, "alg"));
  const algs = o.algorithms && o.algorithms.length > 0 ? o.algorithms : ["ES256", "EdDSA", "Ed25519"];
  if (alg === undefined || !SUPPORTED_ALGS.includes(alg) || !algs.includes(alg)) return "proof alg not allowed";
  const jwkValue = member(header, "jwk");
  const key = jwkValue === undefined ? null : parseJWK(jwkValue);
  // The key must be of the type alg names, and its own alg member, if
  // any, must say alg itself: EdDSA and Ed25519 are separate names.
  if (key === null || (key.kty === "EC") !== (alg === "ES256") || (key.algMember !== undefined && key.algMember !== alg)) {
    return "proof jwk is not a public key for its alg";
  }
  if (!(await holderVerify(key, ascii(parts[0] + "." + parts[1]), sig, false))) return "proof signature does not verify";
  const payload = parseJSON(payloadBytes, "exact");
  if (payload === null || payload.t !== "obj") return "proof payload is not one strict JSON object";
  const jti = str(member(payload, "jti")), htm = str(member(payload, "htm")), htu = str(member(payload, "htu"));
  const iat = member(payload, "iat"), nonce = member(payload, "nonce"), ath = member(payload, "ath");
  if (jti === undefined || utf8(jti).length < 1 || utf8(jti).length > 256 || htm === undefined || htu === undefined ||
    iat?.t !== "num" || !/^(0|[1-9][0-9]*)$/.test(iat.raw) || Number(iat.raw) > MAX_IAT ||
    (nonce !== undefined && nonce.t !== "str") || (ath !== undefined && ath.t !== "str")) {
    return "proof payload lacks jti, htm, htu or iat, or has one of the wrong type";
  }
  if (htm !== e.htm) return "proof htm is not the request's method";
  const a = normalizeHTU(htu), b = normalizeHTU(e.htu);
  if (a === null || b === null || a !== b) return "proof htu is not the request's URI";
  const maxAge = o.maxAgeSeconds ?? 0, skew = o.futureSkewSeconds ?? 0;
  if (!Number.isInteger(maxAge) || !Number.isInteger(skew) || maxAge < 0 || maxAge > 900 || skew < 0 || skew > 300) {
    return "the verifier's proof window is out of bounds";
  }
  const iatMs = Number(iat.raw) * 1000;
  if (iatMs < nowMs - (maxAge || 300) * 1000 || iatMs > nowMs + (skew || 30) * 1000) return "proof iat outside the window";
  if (e.nonce !== undefined && str(nonce) !== e.nonce) return "proof nonce is not the one demanded";
  const want = b64urlEncode(await sha256(ascii(ticketText)));
  if (str(ath) !== want) return "proof ath is not the ticket's";
  if (!equalBytes(await thumbprint(key), jkt)) return "proof key is not the ticket's holder";
  onJTI(jti);
  return null;
}
