// A long-lived verifier for the Go differential test (spec/jsdiff_test.go):
// reads one case per line on stdin, {"vector": {...}, "request": {...}} in
// the form of spec/vectors/tickets.json, and writes one outcome per line on
// stdout, in the form of a vector's request: expect ("allowed", "refused",
// "malformed" with discharge, or "malformed ticket"), refusals, block_ids,
// and on an allowed request budgets and approvals.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import * as lib from "../dist/index.js";
import { keyring, options, pinned, request, ticketText } from "./runner.js";

const file = JSON.parse(readFileSync(process.argv[2], "utf8"));

async function outcome(v, r) {
  let text;
  try {
    text = ticketText(v);
    lib.decodeTicketText(text);
  } catch (e) {
    if (e instanceof lib.Malformed) return { expect: "malformed ticket" };
    throw e;
  }
  try {
    const d = await lib.verify(text, keyring(lib, file, v.keyring), options(v.options), request(lib, r));
    const p = pinned(d);
    if (p.refusals.length === 0) delete p.refusals;
    return p;
  } catch (e) {
    if (!(e instanceof lib.Malformed)) throw e;
    return e.discharge === undefined ? { expect: "malformed" } : { expect: "malformed", discharge: e.discharge };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  let out;
  try {
    const c = JSON.parse(line);
    out = await outcome(c.vector, c.request);
  } catch (e) {
    out = { error: String(e && e.stack) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
