// The demo's Taiwanese shop, tw-ecpay, on ECPay and LINE Pay, which take no idempotency key: its
// admin sees what each gateway offers (no key, the list of refunds a lost answer is settled by,
// ECPay's nightly close) and where ECPay's payment notifications go; the refund ECPay's nightly
// close held back says it was not sent and until when. Photographed in the three languages the
// console speaks.
import { expect, test } from "@playwright/test";
import { PASSWORD, waitInteractive, watchErrors } from "./helpers";

const OFFER_WORDS = {
  "zh-TW": { key: "冪等鍵", blackout: "20:15 至 20:30", none: "沒有" },
  "zh-CN": { key: "幂等键", blackout: "20:15 至 20:30", none: "没有" },
  en: { key: "Key", blackout: "20:15 to 20:30", none: "None" },
} as const;

test("the Taiwanese shop's admin sees what ECPay and LINE Pay offer, and a refund held back by ECPay's nightly close", async ({ page }) => {
  test.setTimeout(300_000);
  const problems = watchErrors(page);
  // The shop is seeded in the background after the other demo tenants: its admin exists once it is.
  await expect(async () => {
    await page.goto("/login?next=/admin/providers");
    await page.getByLabel("Name").fill("yu.admin");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("whoami")).toContainText("yu.admin", { timeout: 3000 });
  }).toPass({ intervals: [5_000, 13_000], timeout: 150_000 });
  await expect(async () => {
    await page.goto("/operations/refund-TW1045-li_1");
    await expect(page.getByTestId("settling")).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 90_000 });
  for (const language of ["zh-TW", "zh-CN", "en"] as const) {
    await page.goto("/admin/providers");
    await waitInteractive(page);
    await page.getByTestId("language-menu").locator("summary").click();
    await page.getByTestId(`language-${language}`).click();
    await expect(page.locator("html")).toHaveAttribute("lang", language);
    const words = OFFER_WORDS[language];
    const rows = page.getByTestId("connections").locator("tbody tr");
    const row = (name: string) => rows.filter({ has: page.getByRole("cell", { name, exact: true }) }).first();
    const ecpay = row("ecpay");
    await expect(ecpay.getByTestId("offer")).toContainText(words.key);
    await expect(ecpay.getByTestId("offer")).toContainText(words.blackout);
    await expect(ecpay.getByTestId("provider-webhook")).toContainText("/webhooks/providers/tw-ecpay/ecpay");
    await expect(ecpay.getByTestId("provider-webhook").locator("input[type=password]")).toHaveCount(0);
    await expect(row("linepay").getByTestId("offer")).toContainText("refundList");
    await page.screenshot({ path: `screenshots/taiwan-providers-${language}.png`, fullPage: true });

    await page.goto("/operations/refund-TW1045-li_1");
    await expect(page.getByTestId("offer")).toContainText(words.none);
    await expect(page.locator("body")).toContainText("20:30");
    await page.screenshot({ path: `screenshots/taiwan-held-${language}.png`, fullPage: true });
  }
  expect(problems).toEqual([]);
});
