// The args digest (spec/CAVEATS.md "The args digest"): SHA-256 of the RFC
// 8785 canonical JSON of the call's arguments, refusing inputs whose
// meaning a server could read otherwise.

import { hex, utf8 } from "./bytes.js";
import { sha256 } from "./crypto.js";
import { canonicalJSON, parseJSON } from "./json.js";

const MAX_ARGS = 1 << 20;

/** The canonical JSON of an input, or null when the input has no digest. */
export function canonicalArgs(input: Uint8Array): string | null {
  if (input.length > MAX_ARGS) return null;
  const v = parseJSON(input, "fold");
  return v === null ? null : canonicalJSON(v);
}

/** The digest of a call's arguments (bytes or a JSON text), or null when refused. */
export async function argsDigest(input: Uint8Array | string): Promise<{ canonical: string; digest: Uint8Array; hex: string } | null> {
  const b = typeof input === "string" ? utf8(input) : input;
  const c = canonicalArgs(b);
  if (c === null) return null;
  const digest = await sha256(utf8(c));
  return { canonical: c, digest, hex: hex(digest) };
}
