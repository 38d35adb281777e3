// A strict JSON (RFC 8259) reader for DPoP proofs and JWKs (spec/FORMAT.md
// §4.5 step 2) and the args digest (CAVEATS.md), and RFC 8785 output.

import { utf8Decode } from "./bytes.js";
import { foldKey } from "./unicode.js";

export type JSONValue =
  | { t: "obj"; m: Array<[string, JSONValue]> }
  | { t: "arr"; a: JSONValue[] }
  | { t: "str"; s: string }
  | { t: "num"; raw: string }
  | { t: "bool"; v: boolean }
  | { t: "null" };

export const MAX_JSON_DEPTH = 32;

/** How two member names of one object collide: exactly, or under case folding. */
export type DuplicateRule = "exact" | "fold";

class Fail extends Error {}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** Parses bytes as one JSON value; null when any rule refuses them. */
export function parseJSON(b: Uint8Array, dup: DuplicateRule): JSONValue | null {
  const s = utf8Decode(b);
  if (s === null) return null;
  try {
    const p = new Parser(s, dup);
    p.ws();
    const v = p.value(0);
    p.ws();
    if (p.i !== s.length) return null;
    return v;
  } catch (e) {
    if (e instanceof Fail) return null;
    throw e;
  }
}

class Parser {
  i = 0;
  constructor(readonly s: string, readonly dup: DuplicateRule) {}

  fail(): never {
    throw new Fail();
  }

  ws(): void {
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else return;
    }
  }

  lit(word: string): void {
    if (this.s.startsWith(word, this.i)) this.i += word.length;
    else this.fail();
  }

  value(depth: number): JSONValue {
    if (depth > MAX_JSON_DEPTH) this.fail();
    const c = this.s[this.i];
    switch (c) {
      case "{": return this.object(depth);
      case "[": {
        this.i++;
        this.ws();
        const a: JSONValue[] = [];
        if (this.s[this.i] === "]") {
          this.i++;
          return { t: "arr", a };
        }
        for (;;) {
          this.ws();
          a.push(this.value(depth + 1));
          this.ws();
          const d = this.s[this.i++];
          if (d === "]") return { t: "arr", a };
          if (d !== ",") this.fail();
        }
      }
      case '"': return { t: "str", s: this.string() };
      case "t": this.lit("true"); return { t: "bool", v: true };
      case "f": this.lit("false"); return { t: "bool", v: false };
      case "n": this.lit("null"); return { t: "null" };
      default: return this.number();
    }
  }

  object(depth: number): JSONValue {
    this.i++;
    this.ws();
    const m: Array<[string, JSONValue]> = [];
    const seen = new Set<string>();
    if (this.s[this.i] === "}") {
      this.i++;
      return { t: "obj", m };
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail();
      const name = this.string();
      const key = this.dup === "fold" ? foldKey(name) : name;
      if (seen.has(key)) this.fail();
      seen.add(key);
      this.ws();
      if (this.s[this.i++] !== ":") this.fail();
      this.ws();
      m.push([name, this.value(depth + 1)]);
      this.ws();
      const d = this.s[this.i++];
      if (d === "}") return { t: "obj", m };
      if (d !== ",") this.fail();
    }
  }

  hex4(): number {
    const h = this.s.slice(this.i, this.i + 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(h)) this.fail();
    this.i += 4;
    return parseInt(h, 16);
  }

  string(): string {
    this.i++;
    let out = "";
    for (;;) {
      if (this.i >= this.s.length) this.fail();
      const c = this.s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail();
      if (c !== 0x5c) {
        out += this.s[this.i++];
        continue;
      }
      const e = this.s[this.i + 1];
      this.i += 2;
      switch (e) {
        case '"': out += '"'; break;
        case "\\": out += "\\"; break;
        case "/": out += "/"; break;
        case "b": out += "\b"; break;
        case "f": out += "\f"; break;
        case "n": out += "\n"; break;
        case "r": out += "\r"; break;
        case "t": out += "\t"; break;
        case "u": {
          const u = this.hex4();
          if (u >= 0xdc00 && u <= 0xdfff) this.fail();
          if (u >= 0xd800 && u <= 0xdbff) {
            if (this.s[this.i] !== "\\" || this.s[this.i + 1] !== "u") this.fail();
            this.i += 2;
            const lo = this.hex4();
            if (lo < 0xdc00 || lo > 0xdfff) this.fail();
            out += String.fromCharCode(u, lo);
          } else out += String.fromCharCode(u);
          break;
        }
        default: this.fail();
      }
    }
  }

  number(): JSONValue {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (m === null) this.fail();
    this.i += m[0].length;
    return { t: "num", raw: m[0] };
  }
}

/** The decimal value of a JSON number as [digits without leading or trailing zeros, exponent]; zero is ["", 0] whatever its sign. */
function decimalValue(raw: string): [string, string, number] {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(raw)!;
  let digits = m[2] + (m[3] ?? "");
  let exp = (m[4] ? parseInt(m[4], 10) : 0) - (m[3] ?? "").length;
  digits = digits.replace(/^0+/, "");
  if (digits === "") return ["", "", 0];
  const t = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - t);
  exp += t;
  return [m[1], digits, exp];
}

/** Whether a JSON number keeps its exact decimal value as an IEEE double written by JCS. */
export function numberKeepsValue(raw: string): boolean {
  const d = Number(raw);
  if (!Number.isFinite(d)) return false;
  const [s1, d1, e1] = decimalValue(raw);
  const [s2, d2, e2] = decimalValue(String(d));
  return s1 === s2 && d1 === d2 && e1 === e2;
}

function jcsString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0c) out += "\\f";
    else if (c === 0x0d) out += "\\r";
    else if (c < 0x20) out += "\\u00" + c.toString(16).padStart(2, "0");
    else out += s[i];
  }
  return out + '"';
}

/** RFC 8785 canonical JSON of a value; null when a number would change value. */
export function canonicalJSON(v: JSONValue): string | null {
  switch (v.t) {
    case "null": return "null";
    case "bool": return v.v ? "true" : "false";
    case "str": return jcsString(v.s);
    case "num": return numberKeepsValue(v.raw) ? String(Number(v.raw)) : null;
    case "arr": {
      const parts: string[] = [];
      for (const x of v.a) {
        const c = canonicalJSON(x);
        if (c === null) return null;
        parts.push(c);
      }
      return "[" + parts.join(",") + "]";
    }
    case "obj": {
      const ms = [...v.m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const parts: string[] = [];
      for (const [k, x] of ms) {
        const c = canonicalJSON(x);
        if (c === null) return null;
        parts.push(jcsString(k) + ":" + c);
      }
      return "{" + parts.join(",") + "}";
    }
  }
}

/** The object's member of that name (names are unique), or undefined. */
export function member(o: JSONValue, name: string): JSONValue | undefined {
  if (o.t !== "obj") return undefined;
  for (const [k, v] of o.m) if (k === name) return v;
  return undefined;
}
