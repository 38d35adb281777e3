// Every vector of spec/vectors/tickets.json, decided in Node exactly as the
// file says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as lib from "../dist/index.js";
import { runArgs, runVector } from "../harness/runner.js";

const file = JSON.parse(readFileSync(new URL("../../spec/vectors/tickets.json", import.meta.url), "utf8"));

test("tickets.json vectors", async (t) => {
  for (const v of file.vectors) {
    await t.test(v.name, async () => assert.deepEqual(await runVector(lib, file, v), []));
  }
});

test("tickets.json args", async (t) => {
  for (const a of file.args) {
    await t.test(a.name, async () => assert.deepEqual(await runArgs(lib, a), []));
  }
});
