// The chain (spec/FORMAT.md §4.1, §4.2; §7 step 2) and attenuation (§4.4,
// §7 step 3, CAVEATS.md "Narrowing").

import { b64urlEncode, concat, equalBytes, equalConstantTime } from "./bytes.js";
import { type Caveat, KIND, narrows } from "./caveats.js";
import { ed25519PublicFromSeed, ed25519Verify } from "./crypto.js";
import { type Refusal, refusal } from "./decision.js";
import { parseJSON } from "./json.js";
import { holderVerify, parseJWK, thumbprint } from "./jwk.js";
import { L_EBLOCK, L_ESEAL, L_HBLOCK, L_HSEAL, L_ID, L_KEY, L_REBIND } from "./labels.js";
import { type HMACKey, hmacSync, hmacWith, sha256Sync } from "./sha256.js";
import type { UnverifiedTicket } from "./ticket.js";

export interface Chain { ids: Uint8Array[] }

// checkChainHMAC is FORMAT.md §4.1, synchronous (no WebCrypto call), under
// the root secret prepared by the keyring.
export function checkChainHMAC(t: UnverifiedTicket, root: HMACKey): Refusal | Chain {
  const ids: Uint8Array[] = [];
  let tag = hmacWith(root, L_KEY, t.blocks[0].ticketId!);
  for (const b of t.blocks) {
    tag = hmacSync(tag, L_HBLOCK, b.bytes);
    ids.push(sha256Sync(L_ID, tag));
  }
  const ok = t.seal ? equalConstantTime(hmacSync(tag, L_HSEAL), t.seal) : equalConstantTime(tag, t.tail!);
  if (!ok) return refusal("chain", -1, null, t.seal ? "seal does not verify" : "tag does not verify");
  return { ids };
}

// checkChainEd25519 is FORMAT.md §4.2.
export async function checkChainEd25519(t: UnverifiedTicket, root: Uint8Array): Promise<Refusal | Chain> {
  const ids: Uint8Array[] = [];
  let pub = root;
  let prev: Uint8Array = new Uint8Array(0);
  for (let i = 0; i < t.blocks.length; i++) {
    const sig = t.signatures![i];
    if (!(await ed25519Verify(pub, concat(L_EBLOCK, prev, t.blocks[i].bytes), sig))) {
      return refusal("chain", i, null, "block signature does not verify");
    }
    ids.push(sha256Sync(L_ID, sig));
    prev = sig;
    pub = t.blocks[i].nextKey!;
  }
  if (t.seal) {
    if (!(await ed25519Verify(pub, concat(L_ESEAL, prev), t.seal))) return refusal("chain", -1, null, "seal does not verify");
  } else {
    let derived = "";
    try {
      derived = await ed25519PublicFromSeed(t.tail!);
    } catch {
      derived = "";
    }
    if (derived !== b64urlEncode(pub)) return refusal("chain", -1, null, "tail is not the last block's next key");
  }
  return { ids };
}

const U64_MAX = (1n << 64n) - 1n;

// The last block index depth=n in block i allows, saturating at 2^64-1.
function depthEnd(i: number, n: bigint): bigint {
  const end = BigInt(i) + n;
  return end > U64_MAX ? U64_MAX : end;
}

// narrowing applies FORMAT.md §7 step 3's rules (a) and (b), returning the
// first refusal, and lists in rebinds each block before it that has a
// holder caveat, with the holder current before it, for rule (c). The
// rebinding rules need signatures, which WebCrypto checks asynchronously:
// the caller checks them afterwards, in block order, and the first of
// them that fails comes before narrowing's refusal, which lies in a later
// block. So the first failure is the first in the order of step 3.
export function narrowing(t: UnverifiedTicket, rebinds: Array<[number, Uint8Array | null]>): Refusal | null {
  const seen = new Map<number, Caveat[]>();
  let depthLimit = U64_MAX;
  let noDelegate = false;
  let holder: Uint8Array | null = null;
  for (let i = 0; i < t.blocks.length; i++) {
    const b = t.blocks[i];
    if (i > 0) {
      if (noDelegate) return refusal("attenuation", i, KIND.ops, "the blocks before lack delegate");
      if (BigInt(i) > depthLimit) return refusal("attenuation", i, KIND.depth, "past the depth limit");
    }
    for (const c of b.caveats) {
      if (i > 0) {
        if (c.kind === KIND.intent) return refusal("attenuation", i, c.kind, "intent after block 0");
        if (c.kind === KIND.depth && depthEnd(i, c.value as bigint) > depthLimit) {
          return refusal("attenuation", i, c.kind, "depth moves the limit later");
        }
        const earlier = typeof c.kind === "number" ? seen.get(c.kind) ?? [] : [];
        if (!earlier.every((e) => narrows(c, e))) return refusal("attenuation", i, c.kind, "widens the effective constraint");
      }
    }
    for (const c of b.caveats) {
      if (typeof c.kind !== "number") continue;
      if (!seen.has(c.kind)) seen.set(c.kind, []);
      seen.get(c.kind)!.push(c);
      if (c.kind === KIND.depth) {
        const end = depthEnd(i, c.value as bigint);
        if (end < depthLimit) depthLimit = end;
      }
      if (c.kind === KIND.ops && !(c.value as string[]).includes("delegate")) noDelegate = true;
    }
    const hc = b.caveats.find((c) => c.kind === KIND.holder);
    if (i > 0 && hc !== undefined) rebinds.push([i, holder]);
    if (hc) holder = hc.value as Uint8Array;
  }
  return null;
}

// checkRebinding applies FORMAT.md §4.4 to block i > 0, which has a holder caveat.
export async function checkRebinding(t: UnverifiedTicket, i: number, current: Uint8Array | null,
  ids: Uint8Array[]): Promise<Refusal | null> {
  const b = t.blocks[i];
  const fail = (why: string) => refusal("attenuation", i, KIND.holder, why);
  if (current === null) return b.holderJWK ? fail("holder JWK on a block that binds an unbound ticket") : null;
  if (!b.holderJWK) return fail("rebinding without the current holder's JWK");
  const v = parseJSON(b.holderJWK, "exact");
  const key = v === null ? null : parseJWK(v);
  if (key === null) return fail("holder JWK is not a public EC P-256 or Ed25519 key");
  const msg = concat(L_REBIND, ids[i - 1], b.bytes);
  if (!(await holderVerify(key, msg, t.holderSigs.get(i)!, true))) return fail("rebinding signature does not verify");
  if (!equalBytes(await thumbprint(key), current)) return fail("holder JWK is not the current holder's");
  return null;
}
