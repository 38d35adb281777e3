// What verify returns and takes: the decision of spec/FORMAT.md §7 (the
// fields of `tickettool verify --json`), the options and the request.

import { type Amount, type Caveat, type CheckRequest, KIND, kindName } from "./caveats.js";
import type { DPoPExpect, DPoPOptions } from "./dpop.js";

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

export function refusal(check: Check, block: number, kind: number | bigint | null, reason: string): Refusal {
  return { check, block, kind: kind === null ? "" : kindName(kind), reason };
}

/** The budgets of one block's (or discharge's) caveats: calls, then total (FORMAT.md §7). */
export function budgetsOf(caveats: Caveat[], block: number, key: string, discharge?: number): Budget[] {
  const out: Budget[] = [];
  const d = discharge !== undefined ? { discharge } : {};
  for (const c of caveats) {
    if (c.kind === KIND.calls) out.push({ block, kind: "calls", key, limit: c.value as bigint, ...d });
  }
  for (const c of caveats) {
    if (c.kind === KIND.total) {
      const a = c.value as Amount;
      out.push({ block, kind: "total", key, limit: a.micros, currency: a.currency, ...d });
    }
  }
  return out;
}
