// An unverified reading of a ticket, for people and tools: what it says,
// without any key. Nothing in it is trustworthy until verify accepts it.

import type { Item } from "./cbor.js";
import { b64urlEncode, hex } from "./bytes.js";
import { type Amount, type Approval, type Caveat, KIND, kindName } from "./caveats.js";
import { MODE_ED25519, decodeTicketText } from "./ticket.js";
import { binding, bindingCode } from "./approvals.js";

export interface CaveatView {
  kind: string;
  /** Lists as arrays; calls and depth as numbers (strings past 2^53); instants RFC 3339; amounts as text; holder and args base64url; an unknown kind the hex of its CBOR value. */
  value: unknown;
  /** The caveat as a person writes it (CAVEATS.md); kind(N)=HEX for an unknown kind. */
  text: string;
}

export interface Inspection {
  verified: false;
  warning: string;
  mode: "hmac" | "ed25519";
  key_id: string;
  family_id: string;
  sealed: boolean;
  /** The last holder caveat's jkt, or "". */
  holder: string;
  now: string;
  /** The earliest until, RFC 3339, or "" when the ticket never expires. */
  expires_at: string;
  expired: boolean;
  approvals: Array<{ block: number; key_id: string; key_short: string; location: string; code: string }>;
  blocks: Array<{ index: number; caveats: CaveatView[] }>;
}

/** An instant in RFC 3339, UTC, whole seconds. */
export function instantText(unix: number): string {
  return new Date(Number(unix) * 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** An amount in CAVEATS.md's canonical text (`0.5USD`). */
export function amountText(a: Amount): string {
  const whole = a.micros / 1000000n, frac = (a.micros % 1000000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${whole}${frac ? "." + frac : ""}${a.currency}`;
}

function encodeHead(major: number, v: bigint): number[] {
  const m = major << 5;
  if (v < 24n) return [m | Number(v)];
  const n = v < 0x100n ? 1 : v < 0x10000n ? 2 : v < 0x100000000n ? 4 : 8;
  const out = [m | (n === 1 ? 24 : n === 2 ? 25 : n === 4 ? 26 : 27)];
  for (let i = n - 1; i >= 0; i--) out.push(Number((v >> BigInt(8 * i)) & 0xffn));
  return out;
}

/** The canonical encoding of a decoded item (it re-encodes to the bytes it was read from). */
function encodeItem(it: Item): number[] {
  switch (it.t) {
    case 0:
    case 1: return encodeHead(it.t, it.v);
    case 2: return [...encodeHead(2, BigInt(it.b.length)), ...it.b];
    case 3: {
      const b = new TextEncoder().encode(it.s);
      return [...encodeHead(3, BigInt(b.length)), ...b];
    }
    case 4: return [...encodeHead(4, BigInt(it.a.length)), ...it.a.flatMap(encodeItem)];
    case 5: return [...encodeHead(5, BigInt(it.m.length)), ...it.m.flatMap(([k, v]) => [...encodeItem(k), ...encodeItem(v)])];
    case 7: return [it.v ? 0xf5 : 0xf4];
  }
}

function num(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/** One caveat as inspect shows it. */
export function caveatView(c: Caveat): CaveatView {
  const name = kindName(c.kind);
  const v = c.value;
  switch (c.kind) {
    case KIND.tools: case KIND.ops: case KIND.paths: case KIND.hosts: case KIND.aud:
      return { kind: name, value: v, text: `${name}=${(v as string[]).join(",")}` };
    case KIND.calls: case KIND.depth:
      return { kind: name, value: num(v as bigint), text: `${name}=${v}` };
    case KIND.until: case KIND.nbf:
      return { kind: name, value: instantText(v as number), text: `${name}=${instantText(v as number)}` };
    case KIND.cost: case KIND.total:
      return { kind: name, value: amountText(v as Amount), text: `${name}=${amountText(v as Amount)}` };
    case KIND.intent:
      return { kind: name, value: v, text: `intent="${(v as string).replace(/[\\"]/g, (x) => "\\" + x)}"` };
    case KIND.holder: case KIND.args: {
      const s = b64urlEncode(v as Uint8Array);
      return { kind: name, value: s, text: `${name}=${s}` };
    }
    case KIND.approval: {
      const a = v as Approval;
      const loc = a.location !== undefined ? ":" + a.location : "";
      if (a.members !== undefined) {
        const value = { need: a.need, approvers: a.members.map((m) => ({ key_id: m.keyId, key: b64urlEncode(m.key) })),
          nonce: b64urlEncode(a.nonce), ...(a.location !== undefined ? { location: a.location } : {}) };
        const list = value.approvers.map((m) => `${m.key_id}:${m.key}`).join(" ");
        return { kind: name, value, text: `approval=${a.need} of ${list}:${value.nonce}${loc}` };
      }
      const value = { key_id: a.keyId, key: b64urlEncode(a.key), nonce: b64urlEncode(a.nonce),
        ...(a.location !== undefined ? { location: a.location } : {}) };
      return { kind: name, value, text: `approval=${a.keyId}:${value.key}:${value.nonce}${loc}` };
    }
    default: {
      const h = hex(Uint8Array.from(encodeItem(v as Item)));
      return { kind: name, value: h, text: `${name}=${h}` };
    }
  }
}

/**
 * Reads a ticket's text without any key: NOTHING IS VERIFIED. Throws
 * Malformed when it does not decode. now (Unix milliseconds or a Date)
 * decides `expired`, with no skew.
 */
export async function inspect(text: string, now: Date | number = Date.now()): Promise<Inspection> {
  const t = decodeTicketText(text);
  const ms = typeof now === "number" ? now : now.getTime();
  const b0 = t.blocks[0];
  let holder = "";
  let until: number | null = null;
  const approvals: Inspection["approvals"] = [];
  for (let i = 0; i < t.blocks.length; i++) {
    for (const c of t.blocks[i].caveats) {
      if (c.kind === KIND.holder) holder = b64urlEncode(c.value as Uint8Array);
      if (c.kind === KIND.until && (until === null || (c.value as number) < until)) until = c.value as number;
      if (c.kind === KIND.approval) {
        const a = c.value as Approval;
        approvals.push({ block: i, key_id: a.keyId, key_short: b64urlEncode(a.key).slice(0, 12), location: a.location ?? "",
          code: bindingCode(await binding(t, i)) });
      }
    }
  }
  return {
    verified: false,
    warning: "NOT VERIFIED: read without any key; nothing here is trustworthy until verify accepts the ticket",
    mode: b0.mode === MODE_ED25519 ? "ed25519" : "hmac",
    key_id: b0.keyId!,
    family_id: hex(b0.ticketId!),
    sealed: t.seal !== undefined,
    holder,
    now: new Date(ms).toISOString().replace(/\.000Z$/, "Z"),
    expires_at: until === null ? "" : instantText(until),
    expired: until !== null && Math.floor(ms / 1000) >= until,
    approvals,
    blocks: t.blocks.map((b, index) => ({ index, caveats: b.caveats.map(caveatView) })),
  };
}
