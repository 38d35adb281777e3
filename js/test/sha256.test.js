// The synchronous SHA-256 and HMAC-SHA256 of the HMAC chain agree with
// WebCrypto's on random inputs of every length around the block edges, and
// on keys longer than a block.
import { test } from "node:test";
import assert from "node:assert/strict";
import { hmacSync, sha256Sync } from "../dist/sha256.js";

const subtle = globalThis.crypto.subtle;
const rand = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n));

test("sha256Sync agrees with WebCrypto", async () => {
  for (let n = 0; n <= 200; n++) {
    const a = rand(n), b = rand(n % 70);
    const want = new Uint8Array(await subtle.digest("SHA-256", new Uint8Array([...a, ...b])));
    assert.deepEqual(sha256Sync(a, b), want, `length ${n}`);
  }
});

test("hmacSync agrees with WebCrypto", async () => {
  for (const klen of [1, 32, 63, 64, 65, 100]) {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 200]) {
      const key = rand(klen), a = rand(n), b = rand(n % 9);
      const k = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      const want = new Uint8Array(await subtle.sign("HMAC", k, new Uint8Array([...a, ...b])));
      assert.deepEqual(hmacSync(key, a, b), want, `key ${klen}, message ${n}`);
    }
  }
});

test("hmacWith under a prepared key is hmacSync", async () => {
  const { hmacKey, hmacWith } = await import("../dist/sha256.js");
  for (const klen of [1, 32, 64, 65]) {
    const key = rand(klen), k = hmacKey(key);
    for (const n of [0, 23, 55, 56, 64, 120]) {
      const a = rand(n), b = rand(16);
      assert.deepEqual(hmacWith(k, a, b), hmacSync(key, a, b), `key ${klen}, message ${n}`);
    }
  }
});
