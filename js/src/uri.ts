// The URI grammar of spec/FORMAT.md §4.5 and the htu normalisation.

export interface URIParts {
  scheme: string;
  userinfo: string | null;
  host: string;
  port: string | null; // null: no ":"; "" an empty port
  path: string; // bytes as a latin-1 string of the UTF-8 encoding
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const SUB_DELIMS = /[!$&'()*+,;=]/;

function isHex(c: string): boolean {
  return /^[0-9A-Fa-f]$/.test(c);
}

// The URI's UTF-8 bytes as a string of one char per byte.
function bytesString(u: string): string {
  return Array.from(new TextEncoder().encode(u), (b) => String.fromCharCode(b)).join("");
}

function validIPv6(s: string): boolean {
  const h16 = /^[0-9A-Fa-f]{1,4}$/;
  const ipv4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
  const parts = s.split("::");
  if (parts.length > 2) return false;
  const groups = (t: string): number => {
    if (t === "") return 0;
    const gs = t.split(":");
    let n = 0;
    for (let i = 0; i < gs.length; i++) {
      if (i === gs.length - 1 && ipv4.test(gs[i])) n += 2;
      else if (h16.test(gs[i])) n += 1;
      else return -100;
    }
    return n;
  };
  if (parts.length === 1) return groups(parts[0]) === 8;
  // An IPv4 tail is allowed only at the very end.
  if (parts[0] !== "" && /\./.test(parts[0])) return false;
  const a = groups(parts[0]), b = groups(parts[1]);
  return a >= 0 && b >= 0 && a + b <= 7;
}

/** Parses a URI by the grammar of FORMAT.md §4.5, or returns null. */
export function parseURI(u: string): URIParts | null {
  const s = bytesString(u);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return null;
  }
  const m = /^[A-Za-z][A-Za-z0-9+\-.]*:\/\//.exec(s);
  if (m === null) return null;
  const scheme = m[0].slice(0, -3);
  const rest = s.slice(m[0].length);
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "%" && !(isHex(rest[i + 1] ?? "") && isHex(rest[i + 2] ?? ""))) return null;
  }
  let end = rest.search(/[\/?#]/);
  if (end < 0) end = rest.length;
  let authority = rest.slice(0, end);
  const tail = rest.slice(end);
  let userinfo: string | null = null;
  const at = authority.lastIndexOf("@");
  if (at >= 0) {
    userinfo = authority.slice(0, at);
    authority = authority.slice(at + 1);
    if (!/^(?:[A-Za-z0-9\-._~!$&'()*+,;=:]|%[0-9A-Fa-f]{2})*$/.test(userinfo)) return null;
  }
  let host: string, port: string | null = null;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close < 0 || !validIPv6(authority.slice(1, close))) return null;
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== "") {
      if (!after.startsWith(":")) return null;
      port = after.slice(1);
    }
  } else {
    const colon = authority.indexOf(":");
    host = colon < 0 ? authority : authority.slice(0, colon);
    if (colon >= 0) port = authority.slice(colon + 1);
    if (host === "") return null;
    for (const c of host) if (!UNRESERVED.test(c) && !SUB_DELIMS.test(c)) return null;
  }
  if (port !== null && !/^[0-9]*$/.test(port)) return null;
  let path = "";
  if (tail.startsWith("/")) {
    const q = tail.search(/[?#]/);
    path = q < 0 ? tail : tail.slice(0, q);
  }
  return { scheme, userinfo, host, port, path };
}

/** A port's value, or -1 when it is over 65535. */
export function portValue(p: string): number {
  const t = p.replace(/^0+/, "");
  if (t.length > 5) return -1;
  const v = t === "" ? 0 : Number(t);
  return v > 65535 ? -1 : v;
}

function removeDotSegments(input: string): string {
  let inp = input, out = "";
  while (inp !== "") {
    if (inp.startsWith("../")) inp = inp.slice(3);
    else if (inp.startsWith("./")) inp = inp.slice(2);
    else if (inp.startsWith("/./")) inp = inp.slice(2);
    else if (inp === "/.") inp = "/";
    else if (inp.startsWith("/../") || inp === "/..") {
      inp = "/" + inp.slice(inp === "/.." ? 3 : 4);
      const i = out.lastIndexOf("/");
      out = i < 0 ? "" : out.slice(0, i);
    } else if (inp === "." || inp === "..") inp = "";
    else {
      const i = inp.indexOf("/", inp.startsWith("/") ? 1 : 0);
      const seg = i < 0 ? inp : inp.slice(0, i);
      out += seg;
      inp = i < 0 ? "" : inp.slice(i);
    }
  }
  return out;
}

function hex2(c: number): string {
  return "%" + c.toString(16).toUpperCase().padStart(2, "0");
}

/** Normalises an htu (FORMAT.md §4.5 "htu normalisation"); null when refused. */
export function normalizeHTU(u: string): string | null {
  if (u === "" || new TextEncoder().encode(u).length > 4096) return null;
  const p = parseURI(u);
  if (p === null || p.userinfo !== null) return null;
  const scheme = p.scheme.toLowerCase();
  const host = p.host.toLowerCase();
  let port = "";
  if (p.port !== null && p.port !== "") {
    const v = portValue(p.port);
    if (v < 0) return null;
    const def = scheme === "http" || scheme === "ws" ? 80 : scheme === "https" || scheme === "wss" ? 443 : -1;
    if (v !== def) port = ":" + v;
  }
  let path = "";
  const s = p.path;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const c = s.charCodeAt(i);
    if (ch === "%") {
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      const d = String.fromCharCode(v);
      path += UNRESERVED.test(d) ? d : hex2(v);
      i += 2;
    } else if (c < 0x80 && (UNRESERVED.test(ch) || SUB_DELIMS.test(ch) || ch === ":" || ch === "@" || ch === "/")) {
      path += ch;
    } else {
      path += hex2(c);
    }
  }
  path = removeDotSegments(path);
  if (path === "") path = "/";
  const out = `${scheme}://${host}${port}${path}`;
  return out.length > 4096 ? null : out;
}
