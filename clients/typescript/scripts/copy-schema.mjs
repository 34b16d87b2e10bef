/**
 * Part of `npm run build`: tsc does not emit `.d.ts` sources, so the generated `src/schema.d.ts`
 * is copied beside the compiled `dist/index.d.ts`, which imports its types.
 */
import { copyFileSync } from "node:fs";

copyFileSync("src/schema.d.ts", "dist/schema.d.ts");
