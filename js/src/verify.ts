// Verification in the order of spec/FORMAT.md §7: key and chain,
// attenuation, revocation, policy, caveats, approvals and the proof.

import { ascii, base32, concat, equalBytes, equalConstantTime, hex } from "./bytes.js";
import { type Amount, type Approval, type Caveat, type CheckRequest, KIND, caveatHolds, kindName, narrows, validKeyId } from "./caveats.js";
import { ed25519PublicFromSeed, ed25519Verify, sha256 } from "./crypto.js";
import { hmacSync, sha256Sync } from "./sha256.js";
import { type DPoPExpect, type DPoPOptions, checkDPoP } from "./dpop.js";
import { Malformed } from "./errors.js";
import { parseJSON } from "./json.js";
import { holderVerify, parseJWK, thumbprint } from "./jwk.js";
import { b64urlEncode } from "./bytes.js";
import { MODE_ED25519, MODE_HMAC, type UnverifiedDischarge, type UnverifiedTicket, decodeDischargeText, decodeTicketText } from "./ticket.js";
import { isSmallOrder } from "./smallorder.js";

const L_KEY = ascii("tickettool/v1 hmac key\0");
const L_HBLOCK = ascii("tickettool/v1 hmac block\0");
const L_HSEAL = ascii("tickettool/v1 hmac seal\0");
const L_EBLOCK = ascii("tickettool/v1 ed25519 block\0");
const L_ESEAL = ascii("tickettool/v1 ed25519 seal\0");
const L_ID = ascii("tickettool/v1 block id\0");
const L_BIND = ascii("tickettool/v1 approval\0");
const L_DISCHARGE = ascii("tickettool/v1 discharge\0");
const L_REBIND = ascii("tickettool/v1 rebind\0");

/** A root key: an HMAC secret (32 bytes) or an Ed25519 public key. */
export type RootKey = { mode: "hmac"; secret: Uint8Array } | { mode: "ed25519"; public: Uint8Array };

/** Root keys by key id (FORMAT.md §4.3). */
export class Keyring {
  private keys = new Map<string, RootKey>();
  /**
   * Adds a key. Refuses an id that is not a key name (1 to 64 bytes
   * 0x21..0x7E other than `+`, chain/FORMAT.md §4), an Ed25519 key of
   * small order (FORMAT.md §4.2) and a secret not 32 bytes.
   */
  add(id: string, key: RootKey): this {
    if (!validKeyId(id, true)) throw new Error("tickettool: keyring: key id not 1 to 64 bytes 0x21..0x7E other than +");
    if (key.mode === "ed25519" && (key.public.length !== 32 || isSmallOrder(key.public))) {
      throw new Error("tickettool: keyring: Ed25519 public key not 32 bytes or of small order");
    }
    if (key.mode === "hmac" && key.secret.length !== 32) throw new Error("tickettool: keyring: HMAC secret not 32 bytes");
    this.keys.set(id, key);
    return this;
  }
  get(id: string): RootKey | undefined {
    return this.keys.get(id);
  }
}

/** The verifier's policy (FORMAT.md §4.3, §4.5, §7). */
export interface Options {
  /** Skew for until and nbf, seconds; negative counts as 0, rounded down. */
  skewSeconds?: number;
  /** Revoked block ids and discharge ids, hex. */
  revoked?: Iterable<string>;
  /** Accepted modes; by default both. */
  modes?: Array<"hmac" | "ed25519">;
  requireHolder?: boolean;
  requireExpiry?: boolean;
  /** Maximum lifetime in seconds; absent is no maximum. */
  maxLifetimeSeconds?: number;
  dpop?: DPoPOptions;
}

/** A request: what the call is, when, and what it carries. */
export interface Request extends CheckRequest {
  /** The request time: a Date or Unix milliseconds. */
  now: Date | number;
  dpop?: DPoPExpect;
  /** Discharges as text forms (dis1_…), in order. */
  discharges?: string[];
}

export type Check = "key" | "mode" | "chain" | "attenuation" | "revoked" | "policy" | "caveat" | "approval" | "dpop";

export interface Refusal { check: Check; block: number; kind: string; reason: string }

export interface Budget {
  block: number;
  kind: "calls" | "total";
  /** The hex id the budget is counted under: a block id, or a discharge id. */
  key: string;
  /** A count for calls; millionths for total. */
  limit: bigint;
  currency?: string;
  /** For a discharge's budget, its index in the request. */
  discharge?: number;
}

export interface UsedApproval { block: number; key_id: string; discharge: number; id: string }

export interface Decision {
  decision: "allowed" | "refused" | "valid" | "invalid";
  refusals: Refusal[];
  /** Block 0's ticket id, hex ("" when the chain did not verify). */
  family_id: string;
  /** ID_0 … ID_n, hex, once the chain verified. */
  block_ids: string[];
  budgets: Budget[];
  approvals: UsedApproval[];
  /** The proof's jti, for the caller to remember against replay. */
  jti?: string;
}

function refusal(check: Check, block: number, kind: number | bigint | null, reason: string): Refusal {
  return { check, block, kind: kind === null ? "" : kindName(kind), reason };
}

function nowMs(now: Date | number): number {
  return typeof now === "number" ? now : now.getTime();
}

/**
 * Verifies a ticket's text form, and decides the request when one is
 * given (without one: "valid" or "invalid", checking key, chain,
 * attenuation, revocation, policy and the time caveats). Throws Malformed
 * when the ticket or a discharge does not decode: there is no decision.
 */
export async function verify(text: string, keys: Keyring, opts: Options = {}, req?: Request): Promise<Decision> {
  const t = decodeTicketText(text);
  const discharges = decodeDischarges(req?.discharges ?? []);
  return decide(t, text, discharges, keys, opts, req);
}

function decodeDischarges(texts: string[]): UnverifiedDischarge[] {
  if (texts.length > 8) throw new Malformed("request: more than 8 discharges");
  return texts.map((d, i) => decodeDischargeText(d, i));
}

interface Chain { ids: Uint8Array[] }

// checkChainHMAC is FORMAT.md §4.1, synchronous (no WebCrypto call).
function checkChainHMAC(t: UnverifiedTicket, secret: Uint8Array): Refusal | Chain {
  const ids: Uint8Array[] = [];
  let tag = hmacSync(secret, L_KEY, t.blocks[0].ticketId!);
  for (const b of t.blocks) {
    tag = hmacSync(tag, L_HBLOCK, b.bytes);
    ids.push(sha256Sync(L_ID, tag));
  }
  const ok = t.seal ? equalConstantTime(hmacSync(tag, L_HSEAL), t.seal) : equalConstantTime(tag, t.tail!);
  if (!ok) return refusal("chain", -1, null, t.seal ? "seal does not verify" : "tag does not verify");
  return { ids };
}

// checkChainEd25519 is FORMAT.md §4.2.
async function checkChainEd25519(t: UnverifiedTicket, root: Uint8Array): Promise<Refusal | Chain> {
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
function narrowing(t: UnverifiedTicket, rebinds: Array<[number, Uint8Array | null]>): Refusal | null {
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
async function checkRebinding(t: UnverifiedTicket, i: number, current: Uint8Array | null,
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

function budgetsOf(caveats: Caveat[], block: number, key: string, discharge?: number): Budget[] {
  const out: Budget[] = [];
  for (const c of caveats) {
    if (c.kind === KIND.calls) out.push({ block, kind: "calls", key, limit: c.value as bigint, ...(discharge !== undefined ? { discharge } : {}) });
  }
  for (const c of caveats) {
    if (c.kind === KIND.total) {
      const a = c.value as Amount;
      out.push({ block, kind: "total", key, limit: a.micros, currency: a.currency, ...(discharge !== undefined ? { discharge } : {}) });
    }
  }
  return out;
}

/** Bind_j of FORMAT.md §4.6 for an approval caveat in block j. */
export async function binding(t: UnverifiedTicket, j: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (let i = 0; i <= j; i++) {
    const len = new Uint8Array(8);
    new DataView(len.buffer).setBigUint64(0, BigInt(t.blocks[i].bytes.length));
    parts.push(len, t.blocks[i].bytes);
  }
  return sha256(concat(L_BIND, await sha256(concat(...parts))));
}

/** The code of a binding, for people: XXXXX-XXXXX. */
export function bindingCode(b: Uint8Array): string {
  const s = base32(b);
  return s.slice(0, 5) + "-" + s.slice(5, 10);
}

async function decide(t: UnverifiedTicket, text: string, ds: UnverifiedDischarge[], keys: Keyring, o: Options,
  req?: Request): Promise<Decision> {
  const d: Decision = { decision: "refused", refusals: [], family_id: "", block_ids: [], budgets: [], approvals: [] };
  const b0 = t.blocks[0];
  const finish = (): Decision => {
    if (req === undefined) d.decision = d.refusals.length === 0 ? "valid" : "invalid";
    else d.decision = d.refusals.length === 0 ? "allowed" : "refused";
    return d;
  };
  // Step 2: key, modes, chain.
  const key = keys.get(b0.keyId!);
  if (key === undefined) return d.refusals.push(refusal("key", -1, null, `no key has id ${b0.keyId}`)), finish();
  if (o.modes !== undefined && !o.modes.includes(key.mode)) return d.refusals.push(refusal("key", -1, null, `the verifier does not accept ${key.mode} keys`)), finish();
  if ((key.mode === "hmac" ? MODE_HMAC : MODE_ED25519) !== b0.mode) {
    return d.refusals.push(refusal("mode", 0, null, "block 0's mode is not the key's")), finish();
  }
  const chain = key.mode === "hmac" ? checkChainHMAC(t, key.secret) : await checkChainEd25519(t, key.public);
  if (!("ids" in chain)) return d.refusals.push(chain), finish();
  d.family_id = hex(b0.ticketId!);
  d.block_ids = chain.ids.map(hex);
  const budgetsAll: Budget[] = [];
  t.blocks.forEach((b, i) => budgetsAll.push(...budgetsOf(b.caveats, i, d.block_ids[i])));
  d.budgets = budgetsAll;
  // Step 3: attenuation.
  const rebinds: Array<[number, Uint8Array | null]> = [];
  let att = narrowing(t, rebinds);
  for (const [i, current] of rebinds) {
    const r = await checkRebinding(t, i, current, chain.ids);
    if (r !== null) {
      att = r;
      break;
    }
  }
  if (att !== null) return d.refusals.push(att), finish();
  // Step 4: revocation.
  const revoked = new Set<string>();
  if (o.revoked !== undefined) for (const x of o.revoked) revoked.add(x.toLowerCase());
  d.block_ids.forEach((id, i) => {
    if (revoked.has(id)) d.refusals.push(refusal("revoked", i, null, "block revoked"));
  });
  if (d.refusals.length > 0) return finish();
  // Step 5: policy.
  const all = t.blocks.flatMap((b, i) => b.caveats.map((c) => ({ c, i })));
  const hasHolder = all.some((x) => x.c.kind === KIND.holder);
  const untils = all.filter((x) => x.c.kind === KIND.until).map((x) => x.c.value as number);
  const now = req ? nowMs(req.now) : Date.now();
  const maxLife = o.maxLifetimeSeconds;
  // 0 is no maximum, as 0 is the default of the DPoP window (spec/QUESTIONS.md).
  const lifeSet = maxLife !== undefined && maxLife !== null && maxLife !== 0;
  if (o.requireHolder && !hasHolder) d.refusals.push(refusal("policy", -1, null, "holder binding required"));
  if ((o.requireExpiry || lifeSet) && untils.length === 0) d.refusals.push(refusal("policy", -1, null, "expiry required"));
  if (lifeSet && untils.length > 0) {
    const until = untils.reduce((a, b) => (b < a ? b : a));
    if (until * 1000 - now > maxLife! * 1000) d.refusals.push(refusal("policy", -1, null, "lifetime over the maximum"));
  }
  if (d.refusals.length > 0) return finish();
  // Step 6: caveats.
  const nowS = Math.floor(now / 1000);
  const skew = Math.max(0, Math.floor(o.skewSeconds ?? 0));
  const checkReq: CheckRequest = req ?? {};
  for (const { c, i } of all) {
    if (req === undefined && c.kind !== KIND.until && c.kind !== KIND.nbf) continue;
    if (!caveatHolds(c, checkReq, nowS, skew)) d.refusals.push(refusal("caveat", i, c.kind, `${kindName(c.kind)} does not hold`));
  }
  if (req === undefined) return finish();
  // Step 6a: approvals.
  let lastHolder: Uint8Array | null = null;
  let lastHolderBlock = -1;
  all.forEach(({ c, i }) => {
    if (c.kind === KIND.holder) {
      lastHolder = c.value as Uint8Array;
      lastHolderBlock = i;
    }
  });
  if (ds.length > 0 || all.some((x) => x.c.kind === KIND.approval)) {
    await checkApprovals(t, ds, checkReq, nowS, skew, now, revoked, lastHolder, d);
  }
  // Step 7: the proof.
  if (lastHolder !== null) {
    const why = await checkDPoP(req.dpop, text, lastHolder, now, o.dpop ?? {}, (jti) => (d.jti = jti));
    if (why !== null) d.refusals.push(refusal("dpop", lastHolderBlock, KIND.holder, why));
  }
  if (d.refusals.length > 0) d.approvals = [];
  return finish();
}

async function checkApprovals(t: UnverifiedTicket, ds: UnverifiedDischarge[], r: CheckRequest, nowS: number, skew: number,
  now: number, revoked: Set<string>, lastHolder: Uint8Array | null, d: Decision): Promise<void> {
  const binds: Uint8Array[] = [];
  const used: Budget[] = [];
  for (let j = 0; j < t.blocks.length; j++) {
    const ac = t.blocks[j].caveats.find((c) => c.kind === KIND.approval);
    if (!ac) continue;
    const a = ac.value as Approval;
    const bind = await binding(t, j);
    binds.push(bind);
    const matches = ds.map((x, n) => ({ x, n })).filter(({ x }) => equalBytes(x.binding, bind));
    const refuse = (kind: number | null, why: string) => d.refusals.push(refusal("approval", j, kind, why));
    if (matches.length === 0) {
      const at = a.location !== undefined ? ` at ${a.location}` : "";
      refuse(KIND.approval, `approval required from ${a.keyId}${at} (code ${bindingCode(bind)})`);
      continue;
    }
    if (matches.length > 1) {
      refuse(KIND.approval, "more than one discharge for this approval");
      continue;
    }
    const { x, n } = matches[0];
    if (x.keyId !== a.keyId) {
      refuse(KIND.approval, "discharge is from another approver key id");
      continue;
    }
    if (!(await ed25519Verify(a.key, concat(L_DISCHARGE, x.block), x.signature))) {
      refuse(KIND.approval, "discharge signature does not verify");
      continue;
    }
    const did = hex(await sha256(concat(L_ID, x.signature)));
    const before = d.refusals.length;
    const until = x.caveats.find((c) => c.kind === KIND.until)!;
    const nbf = x.caveats.find((c) => c.kind === KIND.nbf);
    if (!caveatHolds(until, r, nowS, skew)) refuse(KIND.until, "discharge expired");
    if (nbf && !caveatHolds(nbf, r, nowS, skew)) refuse(KIND.nbf, "discharge not yet valid");
    if ((until.value as number) * 1000 - now > 24 * 3600 * 1000) refuse(KIND.until, "discharge lives too long");
    for (const c of x.caveats) {
      if (c.kind === KIND.until || c.kind === KIND.nbf) continue;
      const holds = c.kind === KIND.holder
        ? lastHolder !== null && equalBytes(lastHolder, c.value as Uint8Array)
        : caveatHolds(c, r, nowS, skew);
      if (!holds) refuse(c.kind as number, `discharge caveat ${kindName(c.kind)} does not hold`);
    }
    if (revoked.has(did)) d.refusals.push(refusal("revoked", j, KIND.approval, "discharge revoked"));
    if (d.refusals.length === before) {
      d.approvals.push({ block: j, key_id: a.keyId, discharge: n, id: did });
      used.push(...budgetsOf(x.caveats, j, did, n));
    }
  }
  ds.forEach((x, n) => {
    if (!binds.some((b) => equalBytes(b, x.binding))) {
      d.refusals.push(refusal("approval", -1, null, `discharge ${n} matches no approval of this ticket`));
    }
  });
  d.budgets.push(...used);
}
