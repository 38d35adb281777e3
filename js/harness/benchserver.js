// The JavaScript side of spec/jsbench_test.go: reads lines {text, secret
// (hex), n}, verifies text n times under that HMAC root key for the
// four-block scenario's request, and answers {ns} (the time it took,
// measured here so that the pipe is not counted).
import { createInterface } from "node:readline";
import * as lib from "../dist/index.js";

const unhex = (s) => Uint8Array.from(s.match(/../g), (h) => parseInt(h, 16));
const req = { now: Date.parse("2026-11-30T12:00:00Z"), tool: "read_file", op: "invoke", paths: ["src/discount/rules.go"] };

for await (const line of createInterface({ input: process.stdin })) {
  const { text, secret, n } = JSON.parse(line);
  const keys = new lib.Keyring().add("root", { mode: "hmac", secret: unhex(secret) });
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const d = await lib.verify(text, keys, {}, req);
    if (d.decision !== "allowed") throw new Error(JSON.stringify(d.refusals));
  }
  process.stdout.write(JSON.stringify({ ns: Number(process.hrtime.bigint() - start) }) + "\n");
}
