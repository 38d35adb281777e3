// The approval caveat (spec/FORMAT.md §4.6, §5): its two shapes, a single
// approver and a threshold approval, and the narrowing of a restatement
// (CAVEATS.md "Narrowing").

import type { Item } from "./cbor.js";
import { compareUTF8, equalBytes } from "./bytes.js";
import { KIND, fail, validKeyId } from "./caveats.js";
import { isSmallOrder } from "./smallorder.js";
import { isPrintable } from "./unicode.js";

/** One approver of a threshold approval (FORMAT.md §4.6). */
export interface Approver { keyId: string; key: Uint8Array }
/**
 * An approval caveat: a single approver (keyId and key), or a threshold
 * approval (members, 2 to 8, and need, its threshold k), under one nonce.
 */
export interface Approval {
  keyId: string; key: Uint8Array; nonce: Uint8Array; location?: string;
  members?: Approver[]; need?: number;
}

/** The approvers of a: its members, or its one approver. */
export function approversOf(a: Approval): Approver[] {
  return a.members ?? [{ keyId: a.keyId, key: a.key }];
}

/** How many distinct approvers of a must approve: need, or 1. */
export function thresholdOf(a: Approval): number {
  return a.need ?? 1;
}

/**
 * Whether the approval c restates e no wider (CAVEATS.md "Narrowing"):
 * another nonce is another approval, always narrower; the same nonce
 * needs each approver of c among e's, and a threshold no lower.
 */
export function approvalNarrows(c: Approval, e: Approval): boolean {
  if (!equalBytes(c.nonce, e.nonce)) return true;
  const set = approversOf(e);
  return approversOf(c).every((m) => set.some((x) => x.keyId === m.keyId && equalBytes(x.key, m.key))) &&
    thresholdOf(c) >= thresholdOf(e);
}

export function approvalOf(it: Item, what: string): Approval {
  const k = KIND.approval;
  if (it.t !== 5) fail(what, k, "not a map");
  const a: Partial<Approval> = {};
  let ids: string[] | undefined, keys: Uint8Array[] | undefined;
  for (const [key, v] of it.m) {
    const f = key.t === 0 ? key.v : -1n;
    if (f === 1n && v.t === 3 && validKeyId(v.s, true)) a.keyId = v.s;
    else if (f === 2n && v.t === 2 && v.b.length === 32 && !isSmallOrder(v.b)) a.key = v.b;
    else if (f === 3n && v.t === 2 && v.b.length === 16) a.nonce = v.b;
    else if (f === 4n && v.t === 3 && v.n >= 1 && v.n <= 256 && isPrintable(v.s)) a.location = v.s;
    else if (f === 5n && v.t === 0 && v.v >= 1n && v.v <= 8n) a.need = Number(v.v);
    else if (f === 6n && v.t === 4 && v.a.every((x) => x.t === 3 && validKeyId(x.s, true))) ids = v.a.map((x) => (x as { s: string }).s);
    else if (f === 7n && v.t === 4 && v.a.every((x) => x.t === 2 && x.b.length === 32 && !isSmallOrder(x.b))) keys = v.a.map((x) => (x as { b: Uint8Array }).b);
    else fail(what, k, "invalid field");
  }
  if (a.nonce === undefined) fail(what, k, "missing field");
  if (a.need === undefined && ids === undefined && keys === undefined) {
    if (a.keyId === undefined || a.key === undefined) fail(what, k, "missing field");
    return a as Approval;
  }
  // The threshold form: keys 3, 4, 5, 6, 7 (FORMAT.md §5).
  if (a.keyId !== undefined || a.key !== undefined || a.need === undefined || ids === undefined || keys === undefined) {
    fail(what, k, "neither the single nor the threshold form");
  }
  const n = ids.length;
  if (n < 2 || n > 8 || keys.length !== n || a.need > n) fail(what, k, "threshold: 2 to 8 approvers, as many keys, 1 <= k <= n");
  for (let i = 1; i < n; i++) {
    if (compareUTF8(ids[i - 1], ids[i]) >= 0) fail(what, k, "threshold: key ids not sorted or not unique");
    for (let j = 0; j < i; j++) if (equalBytes(keys[i], keys[j])) fail(what, k, "threshold: two approvers with one key");
  }
  a.members = ids.map((id, i) => ({ keyId: id, key: keys![i] }));
  a.keyId = "";
  a.key = new Uint8Array(32);
  return a as Approval;
}
