// The console's first-visit benchmark (benches/): Debian's Chromium against the release build,
// `cargo leptos build --release` first (scripts/bench.sh first_visit does).
import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

const port = Number(process.env.OPLEDGER_E2E_PORT ?? 3100);

export default defineConfig({
  ...base,
  testDir: "./benches",
  timeout: 600_000,
  webServer: {
    ...base.webServer,
    command:
      `rm -rf .e2e-data && mkdir -p .e2e-data && exec ../target/release/opledger serve ` +
      `--addr 127.0.0.1:${port} --database-url sqlite://.e2e-data/e2e.db --site-root ../target/site --demo`,
  },
});
