// Fails when the packed package (npm pack) is over 40 KB.
import { execFileSync } from "node:child_process";

const LIMIT = 40 * 1024;
const [pack] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--silent"], { encoding: "utf8" }));
console.log(`npm pack: ${pack.size} bytes packed, ${pack.unpackedSize} unpacked, ${pack.files.length} files (limit ${LIMIT} packed)`);
if (pack.size > LIMIT) process.exit(1);
