// Shared steps: signing in as one of the demo users, waiting for the demo data, and catching
// browser errors.
import { expect, type Page } from "@playwright/test";

export const PASSWORD = "opledger-demo";

/** The demo users. Sign-in is rate-limited per name (a burst of 5, then one every 12 s), so the
 * tests spread their sign-ins over the four. */
export const USERS = {
  support: "sam.support",
  manager: "maria.manager",
  auditor: "ada.auditor",
  admin: "alex.admin",
} as const;

/** Signs in through the form and waits for the page it leads to. */
export async function signIn(page: Page, name: string, next = "/") {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("whoami")).toContainText(name);
}

/** The demo is seeded in the background at start-up: waits until its last operation exists. */
export async function waitForDemo(page: Page) {
  await expect(async () => {
    await page.goto("/operations?q=cancel-aftersale-1051-li_2");
    await expect(page.getByTestId("operation-row")).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 90_000 });
}

/** Collects page errors and console errors, to assert there were none. */
export function watchErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  return problems;
}
