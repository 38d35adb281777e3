// Runs spec/vectors/tickets.json against the package, in Node or in a
// browser: every vector decided exactly as the file says (spec/README.md
// "Running the vectors in another implementation"). Plain ESM, no imports,
// so a page can load it as it is.

const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unhex = (s) => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
const b64url = (b) => {
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

export function keyring(lib, file, ids) {
  const k = new lib.Keyring();
  for (const id of ids ?? []) {
    const key = file.keys[id];
    if (key.mode === "hmac") k.add(id, { mode: "hmac", secret: unhex(key.secret) });
    else k.add(id, { mode: "ed25519", public: unhex(key.public) });
  }
  return k;
}

export function options(o = {}) {
  const out = {};
  if (o.skew_seconds !== undefined) out.skewSeconds = o.skew_seconds;
  if (o.revoked) out.revoked = o.revoked;
  if (o.modes) out.modes = o.modes;
  if (o.require_holder) out.requireHolder = true;
  if (o.require_expiry) out.requireExpiry = true;
  if (o.max_lifetime_seconds !== undefined) out.maxLifetimeSeconds = o.max_lifetime_seconds;
  const dp = {};
  if (o.dpop_algorithms) dp.algorithms = o.dpop_algorithms;
  if (o.dpop_max_age_seconds !== undefined) dp.maxAgeSeconds = o.dpop_max_age_seconds;
  if (o.dpop_future_skew_seconds !== undefined) dp.futureSkewSeconds = o.dpop_future_skew_seconds;
  out.dpop = dp;
  return out;
}

/** The request of a vector in the package's form (throws on a bad amount: a runner bug). */
export function request(lib, r) {
  const q = { now: Date.parse(r.now) };
  for (const f of ["tool", "op", "paths", "urls", "audience", "discharges"]) if (r[f] !== undefined) q[f] = r[f];
  if (r.cost !== undefined) {
    q.cost = lib.parseAmount(r.cost);
    if (q.cost === null) throw new Error(`bad amount ${r.cost}`);
  }
  if (r.args !== undefined) q.args = unhex(r.args);
  if (r.dpop !== undefined) q.dpop = r.dpop;
  return q;
}

/** The parts of a decision a vector pins, in the vector's spelling. */
export function pinned(d) {
  const out = { expect: d.decision, refusals: d.refusals.map((x) => ({ check: x.check, block: x.block, ...(x.kind ? { kind: x.kind } : {}) })) };
  if (d.block_ids.length > 0) out.block_ids = d.block_ids;
  if (d.decision === "allowed") {
    if (d.budgets.length > 0) {
      out.budgets = d.budgets.map((b) => ({ block: b.block, kind: b.kind, key: b.key, limit: String(b.limit),
        ...(b.currency ? { currency: b.currency } : {}), ...(b.discharge !== undefined ? { discharge: b.discharge } : {}) }));
    }
    if (d.approvals.length > 0) out.approvals = d.approvals;
  }
  return out;
}

function expected(r) {
  const out = { expect: r.expect, refusals: r.refusals ?? [] };
  if (r.block_ids) out.block_ids = r.block_ids;
  if (r.expect === "allowed") {
    if (r.budgets) out.budgets = r.budgets;
    if (r.approvals) out.approvals = r.approvals;
  }
  return out;
}

const canon = (x) => JSON.stringify(x, (k, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v));

/** The text form a vector's ticket is presented as. */
export function ticketText(v) {
  return v.ticket !== undefined && v.ticket !== "" ? v.ticket : "tkt1_" + b64url(unhex(v.ticket_hex));
}

/** Runs one vector; returns a list of disagreements (empty when it passes). */
export async function runVector(lib, file, v) {
  const bad = [];
  const text = ticketText(v);
  let t;
  try {
    t = lib.decodeTicketText(text);
  } catch (e) {
    if (!(e instanceof lib.Malformed)) return [`${v.name}: decoding threw ${e}`];
    if (v.error === "malformed") return [];
    return [`${v.name}: malformed, but the vector decodes: ${e.message}`];
  }
  if (v.error === "malformed") return [`${v.name}: decodes, but the vector is malformed`];
  if (v.ticket !== undefined && hexOf(t.bytes) !== v.ticket_hex) bad.push(`${v.name}: text decodes to other bytes`);
  const keys = keyring(lib, file, v.keyring);
  const opts = options(v.options);
  const store = new Map();
  for (const [i, r] of (v.requests ?? []).entries()) {
    const where = `${v.name} request ${i}`;
    const q = request(lib, r);
    let d;
    try {
      d = await lib.verify(text, keys, opts, q);
    } catch (e) {
      if (!(e instanceof lib.Malformed)) {
        bad.push(`${where}: threw ${e && e.stack}`);
      } else if (r.expect !== "malformed") {
        bad.push(`${where}: malformed: ${e.message}`);
      } else if (e.discharge !== r.discharge) {
        bad.push(`${where}: malformed at discharge ${e.discharge}, want ${r.discharge}`);
      }
      continue;
    }
    if (r.expect === "malformed") {
      bad.push(`${where}: decided ${d.decision}, want malformed`);
      continue;
    }
    const got = canon(pinned(d)), want = canon(expected(r));
    if (got !== want) bad.push(`${where}:\n  got  ${got}\n  want ${want}`);
    // The reason FORMAT.md §7 step 6a fixes byte for byte, when the
    // description of a one-request vector states it.
    const reason = /the reason (?:is )?"([^"]+)"/.exec(v.description ?? "");
    if (reason && v.requests.length === 1 && !d.refusals.some((x) => x.reason === reason[1])) {
      bad.push(`${where}: no refusal says ${JSON.stringify(reason[1])}`);
    }
    if (v.sequence) {
      const c = d.decision === "allowed" ? chargeAll(store, d.budgets, q.cost) : {};
      if (c.charge !== r.charge || c.exhausted !== r.exhausted) {
        bad.push(`${where}: charge ${c.charge}/${c.exhausted}, want ${r.charge}/${r.exhausted}`);
      }
    }
  }
  return bad;
}

function chargeAll(store, budgets, cost) {
  for (let i = 0; i < budgets.length; i++) {
    const b = budgets[i];
    const used = store.get(b.key + "/" + b.kind) ?? 0n;
    if (used + (b.kind === "calls" ? 1n : cost?.micros ?? 0n) > b.limit) return { charge: "exhausted", exhausted: i };
  }
  for (const b of budgets) {
    const k = b.key + "/" + b.kind;
    store.set(k, (store.get(k) ?? 0n) + (b.kind === "calls" ? 1n : cost?.micros ?? 0n));
  }
  return { charge: "ok" };
}

/** Runs one args case; returns a list of disagreements. */
export async function runArgs(lib, a) {
  const got = await lib.argsDigest(unhex(a.input_hex));
  if (a.error === "malformed") return got === null ? [] : [`args ${a.name}: digest ${got.hex}, want malformed`];
  if (got === null) return [`args ${a.name}: refused, want ${a.canonical}`];
  const bad = [];
  if (got.canonical !== a.canonical) bad.push(`args ${a.name}: canonical ${JSON.stringify(got.canonical)}, want ${JSON.stringify(a.canonical)}`);
  if (got.hex !== a.digest) bad.push(`args ${a.name}: digest ${got.hex}, want ${a.digest}`);
  return bad;
}

/** Runs every vector and args case of the file; returns the counts and disagreements. */
export async function runAll(lib, file) {
  const bad = [];
  let requests = 0;
  for (const v of file.vectors) {
    requests += (v.requests ?? []).length;
    bad.push(...(await runVector(lib, file, v)));
  }
  for (const a of file.args) bad.push(...(await runArgs(lib, a)));
  return { vectors: file.vectors.length, requests, args: file.args.length, bad };
}
