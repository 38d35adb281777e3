// Amount text (spec/CAVEATS.md "Amount text"): whole[.frac]CUR, in micros.

import type { Amount } from "./caveats.js";

const MAX = (1n << 64n) - 1n;

/** Parses `0.5USD`; null when the text is not an amount. */
export function parseAmount(s: string): Amount | null {
  const m = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,6}))?([A-Z]{3})$/.exec(s);
  if (m === null) return null;
  const micros = BigInt(m[1]) * 1000000n + BigInt((m[2] ?? "").padEnd(6, "0"));
  return micros > MAX ? null : { micros, currency: m[3] };
}
