// Shared steps: signing in as one of the demo users, windows of one admin session, waiting for the
// demo data, and catching browser errors.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";

export const PASSWORD = "opledger-demo";

/** The demo users. Sign-in is rate-limited per name (a burst of 5, then one every 12 s), so the
 * tests spread their sign-ins over the four. */
export const USERS = {
  support: "sam.support",
  manager: "maria.manager",
  auditor: "ada.auditor",
  admin: "alex.admin",
} as const;

/** Signs in through the form and waits for the page it leads to. Sign-ins are limited per name:
 * when the server says to wait, this waits as long as it says and tries again. */
export async function signIn(page: Page, name: string, next = "/") {
  for (let attempt = 1; ; attempt++) {
    await page.goto(`/login?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Name").fill(name);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    const limited = page.getByRole("heading", { name: "Too many sign-in attempts" });
    await expect(page.getByTestId("whoami").or(limited)).toBeVisible();
    if (!(await limited.isVisible()) || attempt === 3) break;
    const seconds = Number((await page.locator("body").textContent())?.match(/Wait (\d+) seconds/)?.[1] ?? 12);
    await page.waitForTimeout((seconds + 1) * 1000);
  }
  await expect(page.getByTestId("whoami")).toContainText(name);
}

/** For a file of tests of admin pages: signs the admin in once before them (sign-ins are limited per
 * name) and gives windows of that session, `width` wide, of a browser asking for `locale`. */
export function adminWindows(): (browser: Browser, width?: number, locale?: string) => Promise<Page> {
  let session: Awaited<ReturnType<BrowserContext["storageState"]>> | undefined;
  test.beforeAll(async ({ browser }) => {
    test.setTimeout(90_000);
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await signIn(page, USERS.admin);
    session = await context.storageState();
    await context.close();
  });
  return async (browser, width = 1440, locale = "en-US") => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, storageState: session, locale });
    return context.newPage();
  };
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

/** Waits until the page's islands run: the footer's connection island marks itself interactive. */
export async function waitInteractive(page: Page) {
  await expect(page.getByTestId("connection")).toHaveAttribute("data-interactive", "true");
}
