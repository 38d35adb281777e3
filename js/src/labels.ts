// The labels of spec/FORMAT.md §4: ASCII strings ending in one zero byte.

import { ascii } from "./bytes.js";

export const L_KEY = ascii("tickettool/v1 hmac key\0");
export const L_HBLOCK = ascii("tickettool/v1 hmac block\0");
export const L_HSEAL = ascii("tickettool/v1 hmac seal\0");
export const L_EBLOCK = ascii("tickettool/v1 ed25519 block\0");
export const L_ESEAL = ascii("tickettool/v1 ed25519 seal\0");
export const L_ID = ascii("tickettool/v1 block id\0");
export const L_BIND = ascii("tickettool/v1 approval\0");
export const L_DISCHARGE = ascii("tickettool/v1 discharge\0");
export const L_REBIND = ascii("tickettool/v1 rebind\0");
