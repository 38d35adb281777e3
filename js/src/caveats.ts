// Caveat kinds: their values (spec/FORMAT.md §5, CAVEATS.md "Values"),
// their checks against a request ("Checks") and narrowing ("Narrowing").

import type { Item } from "./cbor.js";
import { compareUTF8, equalBytes } from "./bytes.js";
import { Malformed } from "./errors.js";
import { isPrintable } from "./unicode.js";
import { parseURI, portValue } from "./uri.js";
import { type Approval, approvalNarrows, approvalOf } from "./approval.js";

export type { Approval, Approver } from "./approval.js";
export { approversOf, thresholdOf } from "./approval.js";

export const KIND = {
  tools: 1, ops: 2, paths: 3, hosts: 4, calls: 5, until: 6, nbf: 7, aud: 8,
  cost: 9, total: 10, depth: 11, intent: 12, holder: 13, approval: 14, args: 15,
} as const;

const NAMES = ["", "tools", "ops", "paths", "hosts", "calls", "until", "nbf", "aud",
  "cost", "total", "depth", "intent", "holder", "approval", "args"];

/** The name of a kind: a known kind's text key, kind(N) for another. */
export function kindName(kind: number | bigint): string {
  return typeof kind === "number" && kind > 0 && kind < NAMES.length ? NAMES[kind] : `kind(${kind})`;
}

export interface Amount { micros: bigint; currency: string }

/**
 * One caveat: a kind (a bigint only for unknown kinds past 2^53) and its
 * value: until and nbf as numbers (they end in year 9999), calls and
 * depth as bigints.
 */
export interface Caveat {
  kind: number | bigint;
  value: string[] | bigint | number | Amount | string | Uint8Array | Approval | Item;
}

export const MAX_INSTANT = 253402300799n;

const TOOL_PART = /^[A-Za-z0-9_.-]{1,128}$/;
const OP = /^[a-z][a-z0-9_-]{0,63}$/;
const AUD = /^[A-Za-z0-9._:\/-]{1,128}$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function validTool(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return TOOL_PART.test(s);
  return TOOL_PART.test(s.slice(0, slash)) && TOOL_PART.test(s.slice(slash + 1));
}

function validPathPrefix(s: string): boolean {
  if (s === "/") return true;
  if (!s.endsWith("/") || !isPrintable(s) || s.includes("\\") || s.includes(",")) return false;
  const body = s.slice(s.startsWith("/") ? 1 : 0, -1);
  return body.split("/").every((seg) =>
    seg !== "" && seg !== "." && seg !== ".." && !seg.startsWith(" ") && !seg.endsWith(" "));
}

function validDNSName(s: string): boolean {
  return s.split(".").every((l) => LABEL.test(l));
}

function validHostPattern(s: string): boolean {
  if (s.length > 253) return false;
  if (s.startsWith("*.")) {
    const rest = s.slice(2);
    const labels = rest.split(".");
    return labels.length >= 2 && validDNSName(rest) && !/^[0-9]+$/.test(labels[labels.length - 1]);
  }
  return validDNSName(s);
}

/** The key-id rule: 1 to 64 bytes 0x21..0x7E, and, where noPlus, not `+`. */
export function validKeyId(s: string, noPlus: boolean): boolean {
  if (s.length < 1 || s.length > 64) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || (noPlus && c === 0x2b)) return false;
  }
  return true;
}

export function fail(what: string, kind: number, why: string): never {
  throw new Malformed(`${what}: caveat ${kindName(kind)}: ${why}`);
}

function uintOf(it: Item, what: string, kind: number): bigint {
  if (it.t !== 0) fail(what, kind, "not an unsigned integer");
  return it.v;
}

function listOf(it: Item, what: string, kind: number, valid: (s: string) => boolean): string[] {
  if (it.t !== 4 || it.a.length === 0) fail(what, kind, "not a non-empty list");
  const out: string[] = [];
  let prev: string | null = null;
  for (const e of it.a) {
    if (e.t !== 3 || !valid(e.s)) fail(what, kind, "invalid entry");
    if (prev !== null && compareUTF8(prev, e.s) >= 0) fail(what, kind, "entries not sorted or repeated");
    prev = e.s;
    out.push(e.s);
  }
  return out;
}

function amountOf(it: Item, what: string, kind: number): Amount {
  if (it.t !== 4 || it.a.length !== 2) fail(what, kind, "not [micros, currency]");
  const [m, c] = it.a;
  if (m.t !== 0 || c.t !== 3 || !/^[A-Z]{3}$/.test(c.s)) fail(what, kind, "not [micros, currency]");
  return { micros: m.v, currency: c.s };
}

function bytesOf(it: Item, what: string, kind: number, n: number): Uint8Array {
  if (it.t !== 2 || it.b.length !== n) fail(what, kind, `not ${n} bytes`);
  return it.b;
}


/** Decodes one caveat value of a known or unknown kind, or throws Malformed. */
export function decodeCaveat(kind: bigint, it: Item, what: string): Caveat {
  if (kind < 1n) throw new Malformed(`${what}: caveat kind 0`);
  if (kind > 15n) return { kind: kind <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(kind) : kind, value: it };
  const k = Number(kind);
  switch (k) {
    case KIND.tools: return { kind: k, value: listOf(it, what, k, validTool) };
    case KIND.ops: return { kind: k, value: listOf(it, what, k, (s) => OP.test(s)) };
    case KIND.paths: return { kind: k, value: listOf(it, what, k, validPathPrefix) };
    case KIND.hosts: return { kind: k, value: listOf(it, what, k, validHostPattern) };
    case KIND.aud: return { kind: k, value: listOf(it, what, k, (s) => AUD.test(s)) };
    case KIND.calls: {
      const v = uintOf(it, what, k);
      if (v < 1n) fail(what, k, "calls=0");
      return { kind: k, value: v };
    }
    case KIND.until:
    case KIND.nbf: {
      const v = uintOf(it, what, k);
      if (v > MAX_INSTANT) fail(what, k, "after 9999-12-31T23:59:59Z");
      return { kind: k, value: Number(v) };
    }
    case KIND.depth: return { kind: k, value: uintOf(it, what, k) };
    case KIND.cost:
    case KIND.total: return { kind: k, value: amountOf(it, what, k) };
    case KIND.intent:
      if (it.t !== 3 || it.n < 1 || !isPrintable(it.s)) fail(what, k, "not 1-1024 printable bytes");
      return { kind: k, value: it.s };
    case KIND.holder:
    case KIND.args: return { kind: k, value: bytesOf(it, what, k, 32) };
    default: return { kind: k, value: approvalOf(it, what) };
  }
}

/** The request a ticket is checked against (CAVEATS.md "Checks"). */
export interface CheckRequest {
  tool?: string;
  op?: string;
  paths?: string[];
  urls?: string[];
  cost?: Amount;
  audience?: string;
  args?: Uint8Array;
}

function toolAdmits(entry: string, tool: string): boolean {
  return entry === tool || (!entry.includes("/") && tool.endsWith("/" + entry) && tool.indexOf("/") === tool.length - entry.length - 1);
}

function normalPath(p: string): boolean {
  if (p === "" || !isPrintable(p) || p.includes("\\")) return false;
  if (p === "/") return true;
  let body = p.startsWith("/") ? p.slice(1) : p;
  if (body.endsWith("/")) body = body.slice(0, -1);
  return body.split("/").every((s) => s !== "" && s !== "." && s !== "..");
}

function pathUnder(p: string, prefix: string): boolean {
  return p.startsWith(prefix) || p === prefix.slice(0, -1) && prefix !== "/";
}

/** The host of a request URL as a hosts caveat compares it, or null. */
function requestHost(u: string): string | null {
  const parsed = parseURI(u);
  if (parsed === null || parsed.host.startsWith("[")) return null;
  if (parsed.port !== null && parsed.port !== "" && portValue(parsed.port) < 0) return null;
  let h = parsed.host.toLowerCase();
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (!/^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/.test(h)) return null;
  return h;
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) {
    const s = pattern.slice(1);
    return host.endsWith(s) && host.length > s.length;
  }
  return pattern === host;
}

/** Whether one caveat of the ticket holds for the request (CAVEATS.md "Checks"). */
export function caveatHolds(c: Caveat, r: CheckRequest, nowS: number, skew: number): boolean {
  switch (c.kind) {
    case KIND.tools: {
      const t = r.tool;
      return t !== undefined && validTool(t) && (c.value as string[]).some((e) => toolAdmits(e, t));
    }
    case KIND.ops: return !!r.op && (c.value as string[]).includes(r.op);
    case KIND.aud: return !!r.audience && (c.value as string[]).includes(r.audience);
    case KIND.paths: {
      const ps = r.paths ?? [];
      return ps.length > 0 && ps.every((p) => normalPath(p) && (c.value as string[]).some((pre) => pathUnder(p, pre)));
    }
    case KIND.hosts: {
      const us = r.urls ?? [];
      return us.length > 0 && us.every((u) => {
        const h = requestHost(u);
        return h !== null && (c.value as string[]).some((pat) => hostMatches(pat, h));
      });
    }
    case KIND.until: return nowS < (c.value as number) + skew;
    case KIND.nbf: return nowS + skew >= (c.value as number);
    case KIND.cost: {
      const a = c.value as Amount;
      return r.cost !== undefined && r.cost.currency === a.currency && r.cost.micros <= a.micros;
    }
    case KIND.total: return r.cost !== undefined && r.cost.currency === (c.value as Amount).currency;
    case KIND.args: return r.args !== undefined && equalBytes(r.args, c.value as Uint8Array);
    case KIND.calls:
    case KIND.depth:
    case KIND.intent:
    case KIND.holder:
    case KIND.approval:
      return true;
    default:
      return false;
  }
}

function hostCovered(p: string, q: string): boolean {
  if (!p.startsWith("*.")) return hostMatches(q, p);
  if (!q.startsWith("*.")) return false;
  const t = p.slice(2), s = q.slice(2);
  return t === s || t.endsWith("." + s);
}

/**
 * Whether caveat c (a later block's) is at least as strict as the earlier
 * caveat e of the same kind (CAVEATS.md "Narrowing"). The effective
 * constraint is the meet of the earlier ones, so c narrows it exactly when
 * it narrows each. depth, intent and holder are the caller's.
 */
export function narrows(c: Caveat, e: Caveat): boolean {
  switch (c.kind) {
    case KIND.tools: return (c.value as string[]).every((x) => (e.value as string[]).some((y) => toolAdmits(y, x)));
    case KIND.ops:
    case KIND.aud: return (c.value as string[]).every((x) => (e.value as string[]).includes(x));
    case KIND.paths: return (c.value as string[]).every((x) => (e.value as string[]).some((y) => x.startsWith(y)));
    case KIND.hosts: return (c.value as string[]).every((x) => (e.value as string[]).some((y) => hostCovered(x, y)));
    case KIND.calls: return (c.value as bigint) <= (e.value as bigint);
    case KIND.until: return (c.value as number) <= (e.value as number);
    case KIND.nbf: return (c.value as number) >= (e.value as number);
    case KIND.cost:
    case KIND.total: {
      const a = c.value as Amount, b = e.value as Amount;
      return a.currency === b.currency && a.micros <= b.micros;
    }
    case KIND.approval: return approvalNarrows(c.value as Approval, e.value as Approval);
    default: return true;
  }
}

