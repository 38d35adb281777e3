// The pinned Unicode 15.0.0 predicates of spec/CAVEATS.md: "Printable" and
// "Names under case folding". The tables come from gen/tables.go.

import { FOLD_PAIRS, PRINTABLE_RUNS } from "./tables.js";

let printStarts: Uint32Array | null = null;
let printEnds: Uint32Array | null = null;

function loadPrintable(): void {
  const runs = PRINTABLE_RUNS.split(";");
  printStarts = new Uint32Array(runs.length);
  printEnds = new Uint32Array(runs.length);
  let prev = 0x7f;
  runs.forEach((r, i) => {
    const [gap, len] = r.split(",").map((x) => parseInt(x, 36));
    printStarts![i] = prev + gap;
    prev = printEnds![i] = prev + gap + len;
  });
}

/** U+0020..U+007E, or a code point of category L, M, N, P or S in Unicode 15.0.0. */
export function isPrintableCodePoint(c: number): boolean {
  if (c < 0x80) return c >= 0x20 && c <= 0x7e;
  if (printStarts === null) loadPrintable();
  let lo = 0, hi = printStarts!.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < printStarts![mid]) hi = mid - 1;
    else if (c >= printEnds![mid]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Every code point of s printable. */
export function isPrintable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) c = s.codePointAt(i++)!;
    if (!isPrintableCodePoint(c)) return false;
  }
  return true;
}

let fold: Map<number, number> | null = null;

/** Maps a code point to its simple case folding class's representative. */
export function foldCodePoint(c: number): number {
  if (fold === null) {
    fold = new Map();
    let prev = 0;
    for (const p of FOLD_PAIRS.split(";")) {
      const [d, off] = p.split(",").map((x) => parseInt(x, 36));
      prev += d;
      fold.set(prev, prev - off);
    }
  }
  return fold.get(c) ?? c;
}

/** The key under which two names equal under case folding collide. */
export function foldKey(s: string): string {
  let out = "";
  for (const ch of s) out += String.fromCodePoint(foldCodePoint(ch.codePointAt(0)!));
  return out;
}
