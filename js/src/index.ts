// @tickettool/verify: verify tickettool capability tickets (format
// version 1, spec/FORMAT.md) in any JavaScript runtime with WebCrypto.

export { Malformed } from "./errors.js";
export { Keyring, verify } from "./verify.js";
export { binding, bindingCode } from "./approvals.js";
export type { RootKey, Options, Request, Decision, Refusal, Budget, UsedApproval, Check } from "./verify.js";
export type { DPoPExpect, DPoPOptions } from "./dpop.js";
export type { Amount, Approval, Caveat, CheckRequest } from "./caveats.js";
export { kindName } from "./caveats.js";
export { argsDigest } from "./args.js";
export { decodeTicketText, decodeDischargeText } from "./ticket.js";
export type { UnverifiedTicket, UnverifiedDischarge, Block } from "./ticket.js";
export { parseAmount } from "./amount.js";
export { inspect, caveatView, instantText, amountText } from "./inspect.js";
export type { Inspection, CaveatView } from "./inspect.js";
