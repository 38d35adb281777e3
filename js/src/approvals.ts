// Approvals and discharges: the binding (spec/FORMAT.md §4.6) and step 6a
// of §7.

import { base32, concat, equalBytes, hex } from "./bytes.js";
import { type Approval, type Approver, type CheckRequest, KIND, caveatHolds, kindName } from "./caveats.js";
import { ed25519Verify, sha256 } from "./crypto.js";
import { type Budget, type Decision, budgetsOf, refusal } from "./decision.js";
import { L_BIND, L_DISCHARGE, L_ID } from "./labels.js";
import type { UnverifiedDischarge, UnverifiedTicket } from "./ticket.js";

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

/** What step 6a checks discharges against. */
export interface ApprovalContext {
  request: CheckRequest;
  nowS: number; // the request time in whole seconds
  skew: number; // the verifier's skew in whole seconds
  now: number; // the request time in milliseconds
  revoked: Set<string>;
  holder: Uint8Array | null; // the ticket's last holder caveat
}

type Refuse = (kind: number | bigint | null, why: string) => void;

// checkDischarge is sub-steps 4 to 6 of step 6a for a discharge whose
// signature verified: every failure is reported, in order.
function checkDischarge(x: UnverifiedDischarge, did: string, ctx: ApprovalContext, refuse: Refuse, revoked: () => void): void {
  const { request, nowS, skew, now } = ctx;
  const until = x.caveats.find((c) => c.kind === KIND.until)!;
  const nbf = x.caveats.find((c) => c.kind === KIND.nbf);
  if (!caveatHolds(until, request, nowS, skew)) refuse(KIND.until, "discharge expired");
  if (nbf && !caveatHolds(nbf, request, nowS, skew)) refuse(KIND.nbf, "discharge not yet valid");
  if ((until.value as number) * 1000 - now > 24 * 3600 * 1000) refuse(KIND.until, "discharge lives too long");
  for (const c of x.caveats) {
    if (c.kind === KIND.until || c.kind === KIND.nbf) continue;
    const holds = c.kind === KIND.holder
      ? ctx.holder !== null && equalBytes(ctx.holder, c.value as Uint8Array)
      : caveatHolds(c, request, nowS, skew);
    if (!holds) refuse(c.kind, `discharge caveat ${kindName(c.kind)} does not hold`);
  }
  if (ctx.revoked.has(did)) revoked();
}

/**
 * Step 6a of FORMAT.md §7: each approval caveat's discharge, then the
 * discharges that match no approval. Used discharges go to d.approvals and
 * their budgets after the ticket's.
 */
export async function checkApprovals(t: UnverifiedTicket, ds: UnverifiedDischarge[], ctx: ApprovalContext, d: Decision): Promise<void> {
  const binds: Uint8Array[] = [];
  const used: Budget[] = [];
  const approvals = inForce(t);
  for (const { j, a } of approvals) {
    const bind = await binding(t, j);
    binds.push(bind);
    const matches = ds.map((x, n) => ({ x, n })).filter(({ x }) => equalBytes(x.binding, bind));
    const refuse: Refuse = (kind, why) => d.refusals.push(refusal("approval", j, kind, why));
    if (a.members !== undefined) {
      await checkThreshold(j, a, a.members, a.need!, bind, matches, ctx, d, refuse, used);
      continue;
    }
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
    await checkOne(j, { keyId: a.keyId, key: a.key }, x, n, ctx, d, refuse, used);
  }
  ds.forEach((x, n) => {
    if (!binds.some((b) => equalBytes(b, x.binding))) {
      d.refusals.push(refusal("approval", -1, null, `discharge ${n} matches no approval of this ticket`));
    }
  });
  d.budgets.push(...used);
}

/**
 * The approvals in force (FORMAT.md §4.6), by the block j where their
 * nonce first appears, ascending: each the latest caveat with that nonce.
 */
function inForce(t: UnverifiedTicket): Array<{ j: number; a: Approval }> {
  const out: Array<{ j: number; a: Approval }> = [];
  t.blocks.forEach((b, j) => {
    const ac = b.caveats.find((c) => c.kind === KIND.approval);
    if (!ac) return;
    const a = ac.value as Approval;
    const first = out.find((e) => equalBytes(e.a.nonce, a.nonce));
    if (first) first.a = a;
    else out.push({ j, a });
  });
  return out;
}

// checkOne is sub-steps 3 to 6 of step 6a for a discharge x (index n)
// whose key id is the approver m's; true when it passed them all, and
// then it is used.
async function checkOne(j: number, m: Approver, x: UnverifiedDischarge, n: number, ctx: ApprovalContext, d: Decision,
  refuse: Refuse, used: Budget[]): Promise<boolean> {
  if (!(await ed25519Verify(m.key, concat(L_DISCHARGE, x.block), x.signature))) {
    refuse(KIND.approval, "discharge signature does not verify");
    return false;
  }
  const did = hex(await sha256(concat(L_ID, x.signature)));
  const before = d.refusals.length;
  checkDischarge(x, did, ctx, refuse, () => d.refusals.push(refusal("revoked", j, KIND.approval, "discharge revoked")));
  if (d.refusals.length !== before) return false;
  d.approvals.push({ block: j, key_id: m.keyId, discharge: n, id: did });
  used.push(...budgetsOf(x.caveats, j, did, n));
  return true;
}

const WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight"];

// checkThreshold is sub-step 8 of step 6a: the discharges bound to a
// threshold approval, in the request's order, then the threshold.
async function checkThreshold(j: number, a: Approval, members: Approver[], need: number, bind: Uint8Array,
  matches: Array<{ x: UnverifiedDischarge; n: number }>, ctx: ApprovalContext, d: Decision, refuse: Refuse, used: Budget[]): Promise<void> {
  const approved = members.map(() => false);
  for (let i = 0; i < matches.length; i++) {
    const { x, n } = matches[i];
    const m = members.findIndex((e) => e.keyId === x.keyId);
    if (m < 0) {
      refuse(KIND.approval, "discharge is from another approver key id");
      continue;
    }
    const same = matches.filter((e) => e.x.keyId === x.keyId);
    if (same.length > 1) {
      if (same[0].n === n) refuse(KIND.approval, `more than one discharge from ${x.keyId}`);
      continue;
    }
    approved[m] = await checkOne(j, members[m], x, n, ctx, d, refuse, used);
  }
  const have = approved.filter((v) => v).length;
  if (have >= need) return;
  const yes = members.filter((_, i) => approved[i]).map((e) => e.keyId);
  const no = members.filter((_, i) => !approved[i]).map((e) => e.keyId);
  const by = have > 0 ? `approved by ${yes.join(", ")}; ` : "";
  const at = a.location !== undefined ? ` at ${a.location}` : "";
  refuse(KIND.approval, `approvals required: ${need} of ${members.length}: ${by}waiting for ${WORDS[need - have]} of ${no.join(", ")}${at} (code ${bindingCode(bind)})`);
}
