/**
 * `npm run check-generated`: generates the types from `../openapi.json` into a temporary file with
 * the same openapi-typescript as `npm run generate`, and fails if they differ from the checked-in
 * `src/schema.d.ts` (run `npm run generate` and commit the result). Another document may be named
 * as the first argument.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const document = process.argv[2] ?? "../openapi.json";
const dir = mkdtempSync(join(tmpdir(), "opledger-schema-"));
const fresh = join(dir, "schema.d.ts");
try {
  const run = spawnSync("openapi-typescript", [document, "-o", fresh], { stdio: "inherit", shell: process.platform === "win32" });
  if (run.status !== 0) {
    console.error("check-generated: openapi-typescript failed");
    process.exit(1);
  }
  if (readFileSync(fresh, "utf8") !== readFileSync("src/schema.d.ts", "utf8")) {
    console.error(`check-generated: src/schema.d.ts is not what ${document} generates; run \`npm run generate\` and commit it`);
    process.exit(1);
  }
  console.log(`check-generated: src/schema.d.ts matches ${document}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
