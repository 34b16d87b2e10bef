// The support desk with two people at once, each in a browser of their own: support takes an
// unknown refund and the manager, on the same page, sees it within a second; the manager's action
// on it asks first and names who is on it; the manager's list filters by holder; she lets it go
// and support sees that too. Photographed in the console's three languages, at desktop and phone
// width, with no sideways scrolling.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

test.describe.configure({ mode: "serial" });

const OP = "refund-1077-li_4";
const sessions = new Map<string, Awaited<ReturnType<BrowserContext["storageState"]>>>();

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  for (const name of [USERS.support, USERS.manager]) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, name);
    if (name === USERS.support) await waitForDemo(page);
    sessions.set(name, await context.storageState());
    await context.close();
  }
});

async function pageAs(browser: Browser, name: string, width = 1440, locale = "en-US"): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, storageState: sessions.get(name), locale });
  return context.newPage();
}

test("one takes an item, the other sees it within a second, and the other's action asks first", async ({ browser }) => {
  const sam = await pageAs(browser, USERS.support);
  const maria = await pageAs(browser, USERS.manager);
  const problems = [...watchErrors(sam), ...watchErrors(maria)];
  await sam.goto(`/operations/${OP}`);
  await maria.goto(`/operations/${OP}`);
  await Promise.all([waitInteractive(sam), waitInteractive(maria)]);
  await expect(maria.getByTestId("holder")).toHaveText("Nobody is on this yet.");

  await sam.getByTestId("holding-claim").click();
  await expect(sam.getByTestId("holder")).toContainText("You are on this, since", { timeout: 5_000 });
  await expect(maria.getByTestId("holder")).toContainText(`${USERS.support} is on this, since`, { timeout: 1_000 });

  const action = maria.locator(".action-forms form").first();
  await expect(action).toHaveAttribute("data-confirm", new RegExp(`^${USERS.support.replace(".", "\\.")} is on this: act anyway\\?`));
  await action.getByRole("button").click();
  const dialog = maria.getByTestId("confirm-dialog");
  await expect(dialog).toContainText(`${USERS.support} is on this: act anyway?`);
  await dialog.getByRole("button", { name: "Go back" }).click();
  await expect(dialog).toHaveCount(0);

  await maria.goto("/operations?held=sam.support");
  await expect(maria.getByTestId("operation-row").filter({ hasText: OP })).toHaveCount(1);
  await expect(maria.getByTestId("operation-row").first().getByTestId("held-by")).toHaveText(USERS.support);
  await maria.goto(`/operations?held=nobody&subject=order%3A1077`);
  await expect(maria.getByTestId("operation-row").filter({ hasText: OP })).toHaveCount(0);

  await maria.goto(`/operations/${OP}`);
  await waitInteractive(maria);
  await maria.getByTestId("holding-release").click();
  await expect(sam.getByTestId("holder")).toHaveText("Nobody is on this yet.", { timeout: 5_000 });
  expect(problems).toEqual([]);
  await sam.context().close();
  await maria.context().close();
});

test("the holding reads in every language at desktop and phone width, without sideways scrolling", async ({ browser }) => {
  const words: Record<string, [string, string]> = {
    "en-US": ["You are on this, since", "Let it go"],
    "zh-TW": ["由你處理，自", "放手"],
    "zh-CN": ["由你处理，自", "放手"],
  };
  for (const [locale, [held, release]] of Object.entries(words)) {
    for (const width of [1440, 390]) {
      const page = await pageAs(browser, USERS.manager, width, locale);
      await page.goto(`/operations/${OP}`);
      if (await page.getByTestId("holding-claim").isVisible()) {
        await page.getByTestId("holding-claim").click();
      }
      await expect(page.getByTestId("holder")).toContainText(held, { timeout: 5_000 });
      await expect(page.getByTestId("holding-release")).toHaveText(release);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `${locale} at ${width} px`).toBeLessThanOrEqual(0);
      await page.getByTestId("holding").screenshot({ path: `screenshots/desk-holding-${locale}-${width}.png` });
      await page.context().close();
    }
  }
  const page = await pageAs(browser, USERS.manager);
  await page.goto(`/operations/${OP}`);
  await waitInteractive(page);
  await page.getByTestId("holding-release").click();
  await expect(page.getByTestId("holder")).toHaveText("Nobody is on this yet.", { timeout: 5_000 });
  await page.context().close();
});
