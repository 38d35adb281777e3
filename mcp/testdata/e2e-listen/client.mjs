// The official MCP TypeScript SDK's Streamable HTTP client, driven by
// mcp/e2e_listen_test.go against tickettool mcp --listen.
//
// usage: node client.mjs URL STEPS_JSON [ORIGIN]
//
// STEPS_JSON is an array of {"name": TOOL, "arguments": {...}}; each is
// called in turn. ORIGIN, when given, is sent as the Origin header (a
// browser-hosted client's). Prints one JSON object on standard output:
// {"protocolVersion", "sessionId", "results": [{"isError", "text"} or
// {"error"}]}, or {"connectError"} when the connection is refused.
//
// With TICKET_FILE and HOLDER_JWK set (a ticket bound to that ES256 key,
// and the key's private JWK as tickettool holder writes it), every request
// presents the ticket as "Authorization: DPoP" with a fresh proof (RFC
// 9449), made here with WebCrypto, and answers a use_dpop_nonce challenge
// once with the nonce it gives.
import { readFileSync } from "node:fs";
import { webcrypto as crypto, randomUUID, createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, stepsJSON, origin] = process.argv.slice(2);
const steps = JSON.parse(stepsJSON);
const requestInit = origin ? { headers: { Origin: origin } } : undefined;

const b64url = (b) => Buffer.from(b).toString("base64url");

// dpopFetch returns a fetch presenting ticket with proofs by the key jwk.
async function dpopFetch(ticket, jwk) {
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  const pub = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const ath = b64url(createHash("sha256").update(ticket).digest());
  let nonce;
  const proof = async (method, target) => {
    const u = new URL(target);
    const header = { typ: "dpop+jwt", alg: "ES256", jwk: pub };
    const claims = { jti: randomUUID(), htm: method, htu: u.origin + u.pathname, iat: Math.floor(Date.now() / 1000), ath };
    if (nonce) claims.nonce = nonce;
    const input = b64url(JSON.stringify(header)) + "." + b64url(JSON.stringify(claims));
    const sig = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, Buffer.from(input));
    return input + "." + b64url(sig);
  };
  return async (target, init = {}) => {
    const method = (init.method || "GET").toUpperCase();
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init.headers);
      headers.set("Authorization", "DPoP " + ticket);
      headers.set("DPoP", await proof(method, String(target)));
      const res = await fetch(target, { ...init, headers });
      const fresh = res.headers.get("DPoP-Nonce");
      if (fresh) nonce = fresh;
      const challenge = res.headers.get("WWW-Authenticate") || "";
      if (res.status === 401 && challenge.includes("use_dpop_nonce") && attempt === 0) continue;
      return res;
    }
  };
}

const opts = { requestInit };
if (process.env.TICKET_FILE && process.env.HOLDER_JWK) {
  const ticket = readFileSync(process.env.TICKET_FILE, "utf8").trim();
  const jwk = JSON.parse(readFileSync(process.env.HOLDER_JWK, "utf8"));
  opts.fetch = await dpopFetch(ticket, jwk);
}
const transport = new StreamableHTTPClientTransport(new URL(url), opts);
const client = new Client({ name: "ts-agent", version: "1.0.0" });
const out = { results: [] };
try {
  await client.connect(transport);
} catch (e) {
  console.log(JSON.stringify({ connectError: String(e && e.message ? e.message : e) }));
  process.exit(0);
}
out.protocolVersion = transport.protocolVersion;
out.sessionId = transport.sessionId;
for (const step of steps) {
  try {
    const res = await client.callTool({ name: step.name, arguments: step.arguments });
    const text = (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
    out.results.push({ isError: !!res.isError, text });
  } catch (e) {
    out.results.push({ error: String(e && e.message ? e.message : e) });
  }
}
await transport.terminateSession().catch(() => {});
await client.close();
console.log(JSON.stringify(out));
