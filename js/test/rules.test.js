// Rules the vectors cannot tell apart from their neighbours (a reason, a
// second line of defence), and the strictness JavaScript's own decoders
// lack (Buffer's base64, JSON.parse's duplicate names).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as lib from "../dist/index.js";
import { b64urlDecode } from "../dist/bytes.js";
import { decodeCBOR } from "../dist/cbor.js";
import { ed25519Verify } from "../dist/crypto.js";
import { parseJSON } from "../dist/json.js";
import { parseJWK } from "../dist/jwk.js";
import { keyring, options, request, ticketText } from "../harness/runner.js";

const file = JSON.parse(readFileSync(new URL("../../spec/vectors/tickets.json", import.meta.url), "utf8"));
const vector = (name) => file.vectors.find((v) => v.name === name);
const unhex = (s) => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));

async function decide(name, i = 0) {
  const v = vector(name);
  return lib.verify(ticketText(v), keyring(lib, file, v.keyring), options(v.options), request(lib, v.requests[i]));
}

test("a missing approval's reason is FORMAT.md §7 step 6a's, with the binding's code", async () => {
  for (const [name, want] of [
    ["approval/hmac/missing", "approval required from pricing-lead at https://approve.example.com/pricing (code JMW3O-GLFWK)"],
    ["approval/hmac/missing-location", "approval required from pricing-lead (code HP4M7-ESTIP)"],
  ]) {
    const d = await decide(name);
    assert.equal(d.refusals[0].reason, want, name);
  }
});

test("a discharge under another key id is refused for its key id, before its signature is checked", async () => {
  const d = await decide("approval/hmac/other-key-id");
  assert.equal(d.refusals[0].check, "approval");
  assert.match(d.refusals[0].reason, /another approver key id/);
});

test("the keyring refuses small-order Ed25519 keys, ids that are not key names, short secrets", () => {
  const small = new Uint8Array(32);
  small[0] = 1; // the identity point
  assert.throws(() => new lib.Keyring().add("r", { mode: "ed25519", public: small }));
  assert.throws(() => new lib.Keyring().add("root+h", { mode: "hmac", secret: new Uint8Array(32) }));
  assert.throws(() => new lib.Keyring().add("", { mode: "hmac", secret: new Uint8Array(32) }));
  assert.throws(() => new lib.Keyring().add("r", { mode: "hmac", secret: new Uint8Array(31) }));
  new lib.Keyring().add("root-h", { mode: "hmac", secret: new Uint8Array(32) });
});

test("an Ed25519 signature whose S is not below L does not verify", async () => {
  const v = vector("ed25519/two-blocks") ?? file.vectors.find((x) => x.intermediate?.signatures);
  const sig = unhex(v.intermediate.signatures[0]);
  const msg = new Uint8Array([...new TextEncoder().encode("tickettool/v1 ed25519 block\0"), ...unhex(v.intermediate.blocks[0])]);
  const pub = unhex(file.keys[v.keyring[0]].public);
  assert.equal(await ed25519Verify(pub, msg, sig), true);
  // S + L: the same point equation, a second encoding (RFC 8032 §5.1.7).
  const L = [0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14];
  const big = new Uint8Array(sig);
  let carry = 0;
  for (let i = 0; i < 32; i++) {
    const x = big[32 + i] + (L[i] ?? 0) + (i === 31 ? 0x10 : 0) + carry;
    big[32 + i] = x & 0xff;
    carry = x >> 8;
  }
  assert.equal(await ed25519Verify(pub, msg, big), false);
});

test("base64url is strict where Node's Buffer is lenient", () => {
  assert.deepEqual(b64urlDecode("AQI"), Uint8Array.from([1, 2]));
  for (const bad of ["AQI=", "AQ I", "AQ+", "AQ/", "AQJ", "A", "AQI\n"]) {
    assert.equal(b64urlDecode(bad), null, bad);
  }
  assert.equal(Buffer.from("AQ I=", "base64url").length > 0, true); // what the rule guards against
  for (let n = 0; n < 100; n++) {
    const b = globalThis.crypto.getRandomValues(new Uint8Array(n));
    const text = Buffer.from(b).toString("base64url");
    assert.deepEqual(b64urlDecode(text), b, text);
    if (n % 3 !== 0) {
      // The same text with unused bits set: refused, or ignored when not strict.
      const last = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(text.at(-1));
      const bumped = text.slice(0, -1) + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last + 1];
      assert.equal(b64urlDecode(bumped), null, bumped);
      assert.deepEqual(b64urlDecode(bumped, false), b, bumped);
    }
  }
});

test("the CBOR reader refuses what core deterministic encoding and FORMAT.md §1 refuse", () => {
  const ok = (h) => decodeCBOR(unhex(h), "t");
  const bad = (h) => assert.throws(() => ok(h), lib.Malformed, h);
  ok("a10100");
  for (const h of ["f6", "f7", "f93c00", "c001", "5f4100ff", "9f01ff", "1817", "190017", "a20100 0100".replace(" ", ""),
    "a202000100", "a1410000", "818181818100", "62c328", "", "0000", "1c", "f818"]) bad(h);
  const long = "7904" + "01" + "61".repeat(1025);
  bad(long);
});

test("JSON names that collide after unescaping are refused; private JWK members refuse the key", () => {
  const p = (s, rule = "exact") => parseJSON(new TextEncoder().encode(s), rule);
  assert.equal(p('{"typ":1,"t\\u0079p":2}'), null);
  assert.notEqual(p('{"typ":1,"Typ":2}'), null);
  assert.equal(p('{"typ":1,"Typ":2}', "fold"), null);
  assert.equal(p('{"a":"\\ud800"}'), null);
  const jwk = JSON.parse(file.holders.alice.private_jwk);
  assert.equal(parseJWK(p(JSON.stringify(jwk))), null);
  delete jwk.d;
  assert.notEqual(parseJWK(p(JSON.stringify(jwk))), null);
  assert.equal(parseJWK(p(JSON.stringify({ ...jwk, k: null }))), null);
});

test("a time or setting that is not a finite number is refused before anything is decided", async () => {
  const v = file.vectors.find((x) => x.name === "hmac/three-blocks");
  const keys = keyring(lib, file, v.keyring);
  const req = request(lib, v.requests[0]);
  assert.equal((await lib.verify(v.ticket, keys, {}, req)).decision, "allowed");
  await assert.rejects(lib.verify(v.ticket, keys, {}, { ...req, now: NaN }), TypeError);
  await assert.rejects(lib.verify(v.ticket, keys, {}, { ...req, now: new Date("x") }), TypeError);
  await assert.rejects(lib.verify(v.ticket, keys, { maxLifetimeSeconds: NaN }, req), TypeError);
  await assert.rejects(lib.verify(v.ticket, keys, { skewSeconds: Infinity }, req), TypeError);
  await assert.rejects(lib.verify(v.ticket, keys, { dpop: { maxAgeSeconds: NaN } }, req), TypeError);
});
