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
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, stepsJSON, origin] = process.argv.slice(2);
const steps = JSON.parse(stepsJSON);
const requestInit = origin ? { headers: { Origin: origin } } : undefined;
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit });
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
