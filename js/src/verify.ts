// Verification in the order of spec/FORMAT.md §7: key and chain,
// attenuation, revocation, policy, caveats, approvals and the proof.

import { hex } from "./bytes.js";
import { type CheckRequest, KIND, caveatHolds, kindName, validKeyId } from "./caveats.js";
import { checkApprovals } from "./approvals.js";
import { checkChainEd25519, checkChainHMAC, checkRebinding, narrowing } from "./chain.js";
import { type Decision, type Options, type Refusal, type Request, budgetsOf, refusal } from "./decision.js";
import { checkDPoP } from "./dpop.js";
import { Malformed } from "./errors.js";
import { type HMACKey, hmacKey } from "./sha256.js";
import { isSmallOrder } from "./smallorder.js";
import { MODE_ED25519, MODE_HMAC, type UnverifiedDischarge, type UnverifiedTicket, decodeDischargeText, decodeTicketText } from "./ticket.js";

export type { Budget, Check, Decision, Options, Refusal, Request, UsedApproval } from "./decision.js";

/** A root key: an HMAC secret (32 bytes) or an Ed25519 public key. */
export type RootKey = { mode: "hmac"; secret: Uint8Array } | { mode: "ed25519"; public: Uint8Array };

/** Root keys by key id (FORMAT.md §4.3). */
export class Keyring {
  private keys = new Map<string, RootKey>();
  private prepared = new Map<string, HMACKey>();
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
    if (key.mode === "hmac") this.prepared.set(id, hmacKey(key.secret));
    else this.prepared.delete(id);
    return this;
  }
  get(id: string): RootKey | undefined {
    return this.keys.get(id);
  }
  /** The HMAC key of id, prepared for the chain. */
  hmac(id: string): HMACKey | undefined {
    return this.prepared.get(id);
  }
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
  validate(opts, req);
  const t = decodeTicketText(text);
  const discharges = decodeDischarges(req?.discharges ?? []);
  return decide(t, text, discharges, keys, opts, req);
}

// validate refuses, as a programming error, a time or setting that is not
// a finite number: NaN compares false both ways, and so would pass the
// lifetime and DPoP window checks instead of failing them.
function validate(o: Options, req?: Request): void {
  const bad = (x: unknown) => x !== undefined && (typeof x !== "number" || !Number.isFinite(x));
  if (req !== undefined && !Number.isFinite(nowMs(req.now))) throw new TypeError("tickettool: request.now is not a valid time");
  if (bad(o.skewSeconds) || bad(o.maxLifetimeSeconds) || bad(o.dpop?.maxAgeSeconds) || bad(o.dpop?.futureSkewSeconds)) {
    throw new TypeError("tickettool: an option in seconds is not a finite number");
  }
}

function decodeDischarges(texts: string[]): UnverifiedDischarge[] {
  if (texts.length > 8) throw new Malformed("request: more than 8 discharges");
  return texts.map((d, i) => decodeDischargeText(d, i));
}

// What steps 5 to 7 read of the chain's caveats, in one pass.
interface Scan {
  until: number | null; // the effective (earliest) until
  holder: Uint8Array | null; // the last holder caveat's thumbprint
  holderBlock: number;
  approvals: boolean;
}

function scan(t: UnverifiedTicket): Scan {
  const s: Scan = { until: null, holder: null, holderBlock: -1, approvals: false };
  for (let i = 0; i < t.blocks.length; i++) {
    for (const c of t.blocks[i].caveats) {
      if (c.kind === KIND.until && (s.until === null || (c.value as number) < s.until)) s.until = c.value as number;
      else if (c.kind === KIND.holder) {
        s.holder = c.value as Uint8Array;
        s.holderBlock = i;
      } else if (c.kind === KIND.approval) s.approvals = true;
    }
  }
  return s;
}

// checkPolicy is FORMAT.md §7 step 5: every policy refusal that applies.
function checkPolicy(s: Scan, o: Options, now: number, d: Decision): void {
  const maxLife = o.maxLifetimeSeconds;
  // 0 is no maximum, as 0 is the default of the DPoP window (spec/QUESTIONS.md).
  const lifeSet = maxLife !== undefined && maxLife !== null && maxLife !== 0;
  if (o.requireHolder && s.holder === null) d.refusals.push(refusal("policy", -1, null, "holder binding required"));
  if ((o.requireExpiry || lifeSet) && s.until === null) d.refusals.push(refusal("policy", -1, null, "expiry required"));
  if (lifeSet && s.until !== null && s.until * 1000 - now > maxLife! * 1000) {
    d.refusals.push(refusal("policy", -1, null, "lifetime over the maximum"));
  }
}

// checkCaveats is FORMAT.md §7 step 6 (with timeOnly, only until and nbf).
function checkCaveats(t: UnverifiedTicket, r: CheckRequest, nowS: number, skew: number, timeOnly: boolean, d: Decision): void {
  for (let i = 0; i < t.blocks.length; i++) {
    for (const c of t.blocks[i].caveats) {
      if (timeOnly && c.kind !== KIND.until && c.kind !== KIND.nbf) continue;
      if (!caveatHolds(c, r, nowS, skew)) d.refusals.push(refusal("caveat", i, c.kind, `${kindName(c.kind)} does not hold`));
    }
  }
}

// checkKeyAndChain is FORMAT.md §7 step 2: the refusal, or the block ids.
// An HMAC chain is checked without waiting (a promise only for Ed25519).
function checkKeyAndChain(t: UnverifiedTicket, keys: Keyring, o: Options): Refusal | Uint8Array[] | Promise<Refusal | Uint8Array[]> {
  const b0 = t.blocks[0];
  const key = keys.get(b0.keyId!);
  if (key === undefined) return refusal("key", -1, null, `no key has id ${b0.keyId}`);
  if (o.modes !== undefined && !o.modes.includes(key.mode)) return refusal("key", -1, null, `the verifier does not accept ${key.mode} keys`);
  if ((key.mode === "hmac" ? MODE_HMAC : MODE_ED25519) !== b0.mode) return refusal("mode", 0, null, "block 0's mode is not the key's");
  if (key.mode === "hmac") {
    const chain = checkChainHMAC(t, keys.hmac(b0.keyId!)!);
    return "ids" in chain ? chain.ids : chain;
  }
  return checkChainEd25519(t, key.public).then((chain) => ("ids" in chain ? chain.ids : chain));
}

// checkAttenuation is FORMAT.md §7 step 3: narrowing's rules, then the
// rebinding signatures of the blocks before narrowing's first refusal, in
// block order (see narrowing); a promise only when there are rebindings.
function checkAttenuation(t: UnverifiedTicket, ids: Uint8Array[]): Refusal | null | Promise<Refusal | null> {
  const rebinds: Array<[number, Uint8Array | null]> = [];
  const first = narrowing(t, rebinds);
  if (rebinds.length === 0) return first;
  return (async () => {
    for (const [i, current] of rebinds) {
      const r = await checkRebinding(t, i, current, ids);
      if (r !== null) return r;
    }
    return first;
  })();
}

async function decide(t: UnverifiedTicket, text: string, ds: UnverifiedDischarge[], keys: Keyring, o: Options,
  req?: Request): Promise<Decision> {
  const d: Decision = { decision: "refused", refusals: [], family_id: "", block_ids: [], budgets: [], approvals: [] };
  const finish = (): Decision => {
    if (d.refusals.length > 0) d.approvals = [];
    if (req === undefined) d.decision = d.refusals.length === 0 ? "valid" : "invalid";
    else d.decision = d.refusals.length === 0 ? "allowed" : "refused";
    return d;
  };
  let chain = checkKeyAndChain(t, keys, o);
  if (chain instanceof Promise) chain = await chain;
  const ids = chain;
  if (!Array.isArray(ids)) return d.refusals.push(ids), finish();
  d.family_id = hex(t.blocks[0].ticketId!);
  d.block_ids = ids.map(hex);
  for (let i = 0; i < t.blocks.length; i++) d.budgets.push(...budgetsOf(t.blocks[i].caveats, i, d.block_ids[i]));
  let att = checkAttenuation(t, ids);
  if (att instanceof Promise) att = await att;
  if (att !== null) return d.refusals.push(att), finish();
  const revoked = new Set<string>();
  if (o.revoked !== undefined) for (const x of o.revoked) revoked.add(x.toLowerCase());
  d.block_ids.forEach((id, i) => {
    if (revoked.has(id)) d.refusals.push(refusal("revoked", i, null, "block revoked"));
  });
  if (d.refusals.length > 0) return finish();
  const s = scan(t);
  const now = req ? nowMs(req.now) : Date.now();
  checkPolicy(s, o, now, d);
  if (d.refusals.length > 0) return finish();
  const nowS = Math.floor(now / 1000);
  const skew = Math.max(0, Math.floor(o.skewSeconds ?? 0));
  checkCaveats(t, req ?? {}, nowS, skew, req === undefined, d);
  if (req === undefined) return finish();
  if (ds.length > 0 || s.approvals) await checkApprovals(t, ds, { request: req, nowS, skew, now, revoked, holder: s.holder }, d);
  if (s.holder !== null) {
    const why = await checkDPoP(req.dpop, text, s.holder, now, o.dpop ?? {}, (jti) => (d.jti = jti));
    if (why !== null) d.refusals.push(refusal("dpop", s.holderBlock, KIND.holder, why));
  }
  return finish();
}
