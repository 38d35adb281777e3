// Runs every vector of spec/vectors/tickets.json in a headless Chromium:
// serves the built package, the runner and the vectors on a loopback port,
// loads a page that runs them with the browser's own WebCrypto, and waits
// for the page to POST its results. Exit 0 only when every vector and args
// case passes. Without a browser it skips (exit 0), unless CI=true.
//
//   node harness/browser.js [path to chromium]   (default $CHROMIUM or /usr/bin/chromium)
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const browser = process.argv[2] ?? process.env.CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(browser)) {
  const msg = `no browser at ${browser}`;
  if (process.env.CI === "true") {
    console.error(`browser run: ${msg}`);
    process.exit(1);
  }
  console.log(`browser run skipped: ${msg}`);
  process.exit(0);
}

// The page imports the package dynamically, so that a module that fails
// to load is reported rather than leaving the page silent.
const page = `<!doctype html><meta charset="utf-8"><title>tickettool vectors</title><script type="module">
let body;
try {
  const lib = await import("/js/dist/index.js");
  const { runAll } = await import("/js/harness/runner.js");
  const file = await (await fetch("/spec/vectors/tickets.json")).json();
  body = await runAll(lib, file);
  body.userAgent = navigator.userAgent;
} catch (e) {
  body = { error: String(e && e.stack || e) };
}
await fetch("/report", { method: "POST", body: JSON.stringify(body) });
document.title = "done";
</script>`;

const types = { ".js": "text/javascript", ".json": "application/json" };
let done;
const reported = new Promise((resolve) => (done = resolve));
const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (req.method === "POST" && url.pathname === "/report") {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      res.end("ok");
      done(JSON.parse(data));
    });
    return;
  }
  if (url.pathname === "/") {
    res.setHeader("content-type", "text/html; charset=utf-8");
    return res.end(page);
  }
  // Only the package, its harness and the vectors are served.
  const rel = normalize(decodeURIComponent(url.pathname)).replace(/^\/+/, "");
  const ok = /^(js\/dist\/[a-z0-9]+\.js|js\/harness\/runner\.js|spec\/vectors\/tickets\.json)$/.test(rel);
  if (!ok) {
    res.statusCode = 404;
    return res.end();
  }
  res.setHeader("content-type", types[rel.slice(rel.lastIndexOf("."))]);
  res.end(readFileSync(join(root, rel)));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const port = server.address().port;

const profile = mkdtempSync(join(tmpdir(), "tickettool-chromium-"));
const child = spawn(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
  `--user-data-dir=${profile}`, "--remote-debugging-port=0", `http://127.0.0.1:${port}/`],
  // Its own process group, so that stopping it stops its helper processes too.
  { stdio: ["ignore", "ignore", "pipe"], detached: true });
let stderr = "";
child.stderr.on("data", (c) => (stderr += c));
const exited = new Promise((r) => child.on("exit", (code) => r(code)));
const timeout = new Promise((r) => setTimeout(() => r({ error: "no report within 120 s" }), 120000));
const result = await Promise.race([reported, timeout, exited.then((code) => ({ error: `browser exited (${code}) before reporting` }))]);
try {
  process.kill(-child.pid, "SIGTERM");
} catch {
  // already gone
}
await exited;
server.close();
// A helper may still be writing to the profile for a moment.
rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });

if (result.error) {
  console.error(`browser run: ${result.error}\n${stderr.slice(-2000)}`);
  process.exit(1);
}
console.log(`browser run: ${result.userAgent}`);
console.log(`browser run: ${result.vectors} vectors (${result.requests} requests), ${result.args} args cases, ${result.bad.length} disagreements`);
for (const b of result.bad.slice(0, 20)) console.log(b);
process.exit(result.bad.length === 0 && result.vectors > 0 ? 0 : 1);
