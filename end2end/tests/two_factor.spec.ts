// Two-factor sign-in in Chromium: an admin adds a person; the person sets up two-factor sign-in on
// Your account (reached from their name in the header), types the first code their "app" shows
// (computed here with Node's HMAC-SHA1, RFC 6238, independently of the server) and sees their ten
// recovery codes once; signing in again, the password leads to the second step, where a code
// signs them in. /account and /login/two-factor are photographed at 1440 and 390 px.
import { createHmac } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { signIn, USERS, waitInteractive, watchErrors } from "./helpers";

const PASSWORD = "a long e2e password";

/** The bytes of an RFC 4648 base32 text (no padding). */
function base32(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of text.replace(/=+$/, "").toUpperCase()) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base32: ${char}`);
    bits += value.toString(2).padStart(5, "0");
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The six-digit TOTP code (SHA-1, 30-second steps) of `secret` at Unix time `at`. */
function totp(secret: string, at: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30)));
  const hash = createHmac("sha1", base32(secret)).update(counter).digest();
  const offset = hash[hash.length - 1] & 0x0f;
  const value = (hash.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return value.toString().padStart(6, "0");
}

const nowSeconds = () => Date.now() / 1000;

async function photograph(page: Page, name: string) {
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: `screenshots/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function signInWithPassword(page: Page, name: string) {
  await page.goto("/login");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test("the RFC 6238 test vector holds for the code computed here", () => {
  // RFC 6238, appendix B: SHA-1, the secret "12345678901234567890", T = 59 s: 94287082.
  expect(totp("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 59)).toBe("287082");
});

test("a person sets up two-factor sign-in and signs in with a code", async ({ page }) => {
  const problems = watchErrors(page);
  const name = `e2e-2fa-${Date.now()}`;

  // An admin adds the person (a demo user of their own, so other tests sign in as before).
  await signIn(page, USERS.admin, "/admin");
  await waitInteractive(page);
  const add = page.getByTestId("add-user");
  await add.getByLabel("Name", { exact: true }).fill(name);
  await add.getByLabel("Role").selectOption("support");
  await add.getByLabel("Password (10 characters or more)").fill(PASSWORD);
  await add.getByRole("button", { name: "Add user" }).click();
  await expect(page.locator(`[data-testid="person"][data-name="${name}"]`)).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();

  // The person signs in with their password alone (no second factor yet) and opens Your account
  // from their name in the header, with the keyboard.
  await signInWithPassword(page, name);
  await expect(page.getByTestId("whoami")).toContainText(name);
  await page.getByTestId("whoami").focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/account$/);
  await expect(page.getByRole("heading", { name: "Your account", level: 1 })).toBeVisible();
  await waitInteractive(page);

  // Set up: the QR code and the key written out; the first code turns it on.
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  await expect(page.getByTestId("two-factor-qr").locator("svg")).toBeVisible();
  const secret = (await page.getByTestId("two-factor-secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await photograph(page, "account-two-factor-scan");
  await waitInteractive(page);
  await page.getByLabel("The six-digit code the app shows now").fill(totp(secret, nowSeconds()));
  await page.getByRole("button", { name: "Turn on" }).click();
  const codes = page.getByTestId("new-recovery-codes");
  await expect(codes).toContainText("shown only this once");
  await expect(codes.locator("li")).toHaveCount(10);
  await expect(page.getByTestId("two-factor-state")).toHaveText("On");
  await photograph(page, "account-two-factor-on");
  await page.reload();
  await expect(page.getByTestId("new-recovery-codes")).toHaveCount(0);
  await page.getByRole("button", { name: "Sign out" }).click();

  // Signing in again: the password leads to the second step, and nothing opens without a code.
  await signInWithPassword(page, name);
  await expect(page).toHaveURL(/\/login\/two-factor$/);
  await expect(page.getByRole("heading", { name: "Two-factor sign-in" })).toBeVisible();
  await photograph(page, "login-two-factor");
  const code = page.getByLabel("Code from your app, or a recovery code");
  await code.fill("000000" === totp(secret, nowSeconds()) ? "111111" : "000000");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not right, or it was used already" })).toBeVisible();
  // The code that turned it on was used: the app's next one (one step ahead is accepted).
  await code.fill(totp(secret, nowSeconds() + 30));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("whoami")).toContainText(name);
  expect(problems).toEqual([]);
});
