// inspect reads a ticket without a key and shows its caveats in the text
// forms of spec/CAVEATS.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as lib from "../dist/index.js";

const file = JSON.parse(readFileSync(new URL("../../spec/vectors/tickets.json", import.meta.url), "utf8"));
const ticket = (name) => file.vectors.find((v) => v.name === name).ticket;
const now = Date.parse("2026-11-30T12:00:00Z");

test("inspect shows every kind's text form and value", async () => {
  const i = await lib.inspect(ticket("hmac/three-blocks"), now);
  assert.equal(i.verified, false);
  assert.equal(i.mode, "hmac");
  assert.equal(i.key_id, "root-h");
  assert.equal(i.expires_at, "2026-11-30T12:30:00Z");
  assert.equal(i.expired, false);
  assert.deepEqual(i.blocks[0].caveats.map((c) => c.text), ["tools=read_file,write_file", "ops=delegate,invoke", "paths=src/",
    "hosts=*.example.org", "until=2026-11-30T13:00:00Z", 'intent="upgrade pricing deps"']);
  assert.equal((await lib.inspect(ticket("hmac/three-blocks"), Date.parse("2026-11-30T12:30:00Z"))).expired, true);

  const u = await lib.inspect(ticket("hmac/unknown-kind"), now);
  assert.deepEqual(u.blocks[0].caveats[1], { kind: "kind(99)", value: "01", text: "kind(99)=01" });

  const d = await lib.inspect(ticket("attenuation/depth-saturates"), now);
  assert.deepEqual(d.blocks[0].caveats[0], { kind: "depth", value: "18446744073709551615", text: "depth=18446744073709551615" });

  const a = await lib.inspect(ticket("approval/hmac/missing"), now);
  assert.deepEqual(a.approvals.map((x) => [x.block, x.key_id, x.code]), [[1, "pricing-lead", "JMW3O-GLFWK"]]);
  assert.match(a.blocks[1].caveats.find((c) => c.kind === "approval").text, /^approval=pricing-lead:[A-Za-z0-9_-]{43}:[A-Za-z0-9_-]{22}:https:\/\/approve\.example\.com\/pricing$/);
});

test("inspect refuses what does not decode", async () => {
  await assert.rejects(lib.inspect("tkt1_AA"), lib.Malformed);
});
