// Decoding tickets (spec/FORMAT.md §2, §3) and discharges (§4.6), strictly:
// every accepted byte string re-encodes to itself.

import { type Item, decodeCBOR } from "./cbor.js";
import { b64urlDecode } from "./bytes.js";
import { type Caveat, KIND, decodeCaveat, validKeyId } from "./caveats.js";
import { Malformed } from "./errors.js";
import { isSmallOrder } from "./smallorder.js";

export const MODE_HMAC = 1;
export const MODE_ED25519 = 2;

export interface Block {
  bytes: Uint8Array;
  mode?: number;
  keyId?: string;
  ticketId?: Uint8Array;
  caveats: Caveat[];
  nextKey?: Uint8Array;
  holderJWK?: Uint8Array;
}

/** A decoded ticket; nothing in it is verified yet. */
export interface UnverifiedTicket {
  bytes: Uint8Array;
  blocks: Block[];
  signatures?: Uint8Array[];
  tail?: Uint8Array;
  seal?: Uint8Array;
  holderSigs: Map<number, Uint8Array>;
}

export interface UnverifiedDischarge {
  bytes: Uint8Array;
  block: Uint8Array;
  keyId: string;
  nonce: Uint8Array;
  caveats: Caveat[];
  binding: Uint8Array;
  signature: Uint8Array;
}

const MAX_TICKET = 65536;
const MAX_BLOCKS = 32;
const MAX_CAVEATS = 16;
const MAX_APPROVALS = 4;
const MAX_DISCHARGE = 4096;

/** Decodes a text form (prefix, then strict unpadded base64url). */
export function decodeText(text: string, prefix: string, maxBytes: number, what: string): Uint8Array {
  if (!text.startsWith(prefix)) throw new Malformed(`${what}: text does not start with ${prefix}`);
  const body = text.slice(prefix.length);
  if (body.length > Math.ceil((maxBytes * 4) / 3)) throw new Malformed(`${what}: text too long`);
  const b = b64urlDecode(body);
  if (b === null) throw new Malformed(`${what}: text is not canonical unpadded base64url`);
  return b;
}

// fields reads a map of the format's fields: unsigned integer keys, each
// one of allowed; anything else is an unknown field.
function fields(it: Item, allowed: readonly number[], what: string): Array<Item | undefined> {
  if (it.t !== 5) throw new Malformed(`${what}: not a map`);
  const out = new Array<Item | undefined>(8);
  for (const [k, v] of it.m) {
    const n = k.t === 0 && k.v < 8n ? Number(k.v) : -1;
    if (!allowed.includes(n)) throw new Malformed(`${what}: unknown field`);
    out[n] = v;
  }
  return out;
}

const TICKET_FIELDS = [1, 2, 3, 4, 5, 6] as const;
const BLOCK_FIELDS = TICKET_FIELDS;
const DISCHARGE_FIELDS = [1, 2, 3] as const;
const DBLOCK_FIELDS = [2, 3, 4, 7] as const;

function bstr(it: Item | undefined, what: string, size?: number): Uint8Array {
  if (it === undefined || it.t !== 2) throw new Malformed(`${what}: not a byte string`);
  if (size !== undefined && it.b.length !== size) throw new Malformed(`${what}: not ${size} bytes`);
  return it.b;
}

function caveatsOf(it: Item | undefined, what: string): Caveat[] {
  if (it === undefined || it.t !== 5) throw new Malformed(`${what}: caveats not a map`);
  if (it.m.length > MAX_CAVEATS) throw new Malformed(`${what}: more than 16 caveats`);
  return it.m.map(([k, v]) => {
    if (k.t !== 0) throw new Malformed(`${what}: caveat kind not an unsigned integer`);
    return decodeCaveat(k.v, v, what);
  });
}

function decodeBlock(bytes: Uint8Array, i: number, mode: number): Block {
  const what = `block ${i}`;
  const f = fields(decodeCBOR(bytes, what), BLOCK_FIELDS, what);
  const b: Block = { bytes, caveats: caveatsOf(f[4], what) };
  if (i === 0) {
    const m = f[1], k = f[2];
    if (m?.t !== 0 || (m.v !== 1n && m.v !== 2n)) throw new Malformed(`${what}: mode missing or unknown`);
    b.mode = Number(m.v);
    if (k?.t !== 3 || !validKeyId(k.s, false)) throw new Malformed(`${what}: key id missing or invalid`);
    b.keyId = k.s;
    b.ticketId = bstr(f[3], `${what}: ticket id`, 16);
    if (f[6] !== undefined) throw new Malformed(`${what}: holder JWK in block 0`);
  } else if ((f[1] !== undefined) || (f[2] !== undefined) || (f[3] !== undefined)) {
    throw new Malformed(`${what}: mode, key id or ticket id after block 0`);
  }
  const m0 = i === 0 ? b.mode! : mode;
  if (m0 === MODE_ED25519) {
    b.nextKey = bstr(f[5], `${what}: next key`, 32);
    if (isSmallOrder(b.nextKey)) throw new Malformed(`${what}: next key of small order`);
  } else if (f[5] !== undefined) {
    throw new Malformed(`${what}: next key in HMAC mode`);
  }
  if (f[6] !== undefined) {
    b.holderJWK = bstr(f[6], `${what}: holder JWK`);
    if (b.holderJWK.length === 0) throw new Malformed(`${what}: empty holder JWK`);
    if (!b.caveats.some((c) => c.kind === KIND.holder)) throw new Malformed(`${what}: holder JWK without a holder caveat`);
  }
  return b;
}

/** Decodes a ticket's bytes (FORMAT.md §1–§3, §5, §6); throws Malformed. */
export function decodeTicket(bytes: Uint8Array): UnverifiedTicket {
  if (bytes.length > MAX_TICKET) throw new Malformed("ticket over 65536 bytes");
  const f = fields(decodeCBOR(bytes, "ticket"), TICKET_FIELDS, "ticket");
  const v = f[1];
  if (v?.t !== 0 || v.v !== 1n) throw new Malformed("ticket: version is not 1");
  const bl = f[2];
  if (bl?.t !== 4 || bl.a.length < 1 || bl.a.length > MAX_BLOCKS) throw new Malformed("ticket: blocks not 1 to 32");
  const blocks: Block[] = [];
  bl.a.forEach((it, i) => blocks.push(decodeBlock(bstr(it, `block ${i}`), i, blocks[0]?.mode ?? 0)));
  const mode = blocks[0].mode!;
  const t: UnverifiedTicket = { bytes, blocks, holderSigs: new Map() };
  if ((f[4] !== undefined) === (f[5] !== undefined)) throw new Malformed("ticket: not exactly one of tail and seal");
  if (mode === MODE_ED25519) {
    const s = f[3];
    if (s?.t !== 4 || s.a.length !== blocks.length) throw new Malformed("ticket: not one signature per block");
    t.signatures = s.a.map((x) => bstr(x, "ticket: signature", 64));
    if (f[4] !== undefined) t.tail = bstr(f[4], "ticket: tail", 32);
    else t.seal = bstr(f[5], "ticket: seal", 64);
  } else {
    if (f[3] !== undefined) throw new Malformed("ticket: signatures in HMAC mode");
    if (f[4] !== undefined) t.tail = bstr(f[4], "ticket: tail", 32);
    else t.seal = bstr(f[5], "ticket: seal", 32);
  }
  const hs = f[6];
  if (hs !== undefined) {
    if (hs.t !== 5 || hs.m.length === 0) throw new Malformed("ticket: holder signatures not a non-empty map");
    for (const [k, s] of hs.m) {
      if (k.t !== 0 || k.v >= BigInt(blocks.length)) throw new Malformed("ticket: holder signature of no block");
      const sig = bstr(s, "ticket: holder signature");
      if (sig.length < 1 || sig.length > 256) throw new Malformed("ticket: holder signature not 1 to 256 bytes");
      t.holderSigs.set(Number(k.v), sig);
    }
  }
  blocks.forEach((b, i) => {
    if ((b.holderJWK !== undefined) !== t.holderSigs.has(i)) throw new Malformed(`block ${i}: holder JWK and signature not paired`);
  });
  const approvals = blocks.reduce((n, b) => n + b.caveats.filter((c) => c.kind === KIND.approval).length, 0);
  if (approvals > MAX_APPROVALS) throw new Malformed("ticket: more than 4 approval caveats");
  return t;
}

/** Decodes a ticket's text form (tkt1_…); throws Malformed. */
export function decodeTicketText(text: string): UnverifiedTicket {
  return decodeTicket(decodeText(text, "tkt1_", MAX_TICKET, "ticket"));
}

/** Decodes a discharge's text form (dis1_…, FORMAT.md §4.6); throws Malformed. */
export function decodeDischargeText(text: string, index?: number): UnverifiedDischarge {
  try {
    const bytes = decodeText(text, "dis1_", MAX_DISCHARGE, "discharge");
    if (bytes.length > MAX_DISCHARGE) throw new Malformed("discharge over 4096 bytes");
    const f = fields(decodeCBOR(bytes, "discharge"), DISCHARGE_FIELDS, "discharge");
    const v = f[1];
    if (v?.t !== 0 || v.v !== 1n) throw new Malformed("discharge: version is not 1");
    const block = bstr(f[2], "discharge: block");
    const signature = bstr(f[3], "discharge: signature", 64);
    const bf = fields(decodeCBOR(block, "discharge block"), DBLOCK_FIELDS, "discharge block");
    const k = bf[2];
    if (k?.t !== 3 || !validKeyId(k.s, true)) throw new Malformed("discharge block: key id missing or invalid");
    const nonce = bstr(bf[3], "discharge block: nonce", 16);
    const caveats = caveatsOf(bf[4], "discharge block");
    if (caveats.length === 0) throw new Malformed("discharge block: no caveats");
    if (!caveats.some((c) => c.kind === KIND.until)) throw new Malformed("discharge block: no until caveat");
    if (caveats.some((c) => c.kind === KIND.approval)) throw new Malformed("discharge block: an approval caveat");
    const binding = bstr(bf[7], "discharge block: binding", 32);
    return { bytes, block, keyId: k.s, nonce, caveats, binding, signature };
  } catch (e) {
    if (e instanceof Malformed && index !== undefined) throw new Malformed(`discharge ${index}: ${e.message.replace(/^tickettool: malformed: /, "")}`, index);
    throw e;
  }
}
