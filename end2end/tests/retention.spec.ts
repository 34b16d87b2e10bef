// Retention, as an admin sets it: the page says every operation stays hot until a retention is
// set, refuses 0 days beside the field and changes nothing, saves a retention to a folder, sweeps
// now (nothing is due yet: the demo's operations closed moments ago) and shows the sweep's end,
// then stops archiving after a confirmation. The page is photographed in the three languages at
// 1440 and 390 px into screenshots/.
import { expect, test } from "@playwright/test";
import * as path from "node:path";
import { adminWindows, waitInteractive, watchErrors } from "./helpers";

test.describe.configure({ mode: "serial" });

const adminAt = adminWindows();

// Inside the test server's --archive-dir (.e2e-data, made afresh for each run).
const archive = `file://${path.resolve(".e2e-data/archive")}`;

test("an admin sets a retention, is refused 0 days, sweeps now and stops archiving", async ({ browser }) => {
  test.setTimeout(90_000);
  const page = await adminAt(browser);
  const problems = watchErrors(page);
  await page.goto("/admin/retention");
  await waitInteractive(page);
  const section = page.getByTestId("retention");
  await expect(section.getByRole("heading", { name: "Retention and the archive" })).toBeVisible();
  await expect(page.getByTestId("retention-current")).toContainText("Every operation stays in the hot tables");
  await expect(page.getByTestId("archive-files-empty")).toBeVisible();

  const result = page.getByTestId("retention-result");
  await section.getByLabel("Days after closing").fill("0");
  await section.getByLabel("Archive").fill(archive);
  // The browser's own check stops 0 below the minimum; the server refuses it too when it comes.
  await section.getByLabel("Days after closing").evaluate((input: HTMLInputElement) => input.removeAttribute("min"));
  await section.getByRole("button", { name: "Save retention" }).click();
  await expect(result).toContainText("Days after closing: a whole number from 1 to 36500");
  await page.reload();
  await expect(page.getByTestId("retention-current")).toContainText("Every operation stays in the hot tables");

  await waitInteractive(page);
  await section.getByLabel("Days after closing").fill("30");
  await section.getByLabel("Archive").fill(archive);
  await section.getByRole("button", { name: "Save retention" }).click();
  await expect(result).toContainText("Closed operations will be archived 30 days after they closed");
  await page.reload();
  await expect(page.getByTestId("retention-current")).toContainText(`archived 30 days after they closed, to ${archive}`);
  await expect(page.getByTestId("retention-key")).toContainText("opledger audit verify-archive");

  await waitInteractive(page);
  await page.getByTestId("sweep-now").click();
  await expect(result).toContainText("Sweeping");
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("retention-sweep")).toContainText("The last sweep archived 0 operations", { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
  await page.screenshot({ path: "screenshots/admin-retention-en-set.png", fullPage: true });

  await waitInteractive(page);
  await section.getByRole("button", { name: "Stop archiving" }).click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toContainText("Nothing more will be archived");
  await dialog.getByTestId("confirm-yes").click();
  await expect(result).toContainText("Archiving stopped");
  await page.reload();
  await expect(page.getByTestId("retention-current")).toContainText("Every operation stays in the hot tables");
  expect(problems.filter((problem) => !/status of 422/.test(problem)), "the refused days are a 422, nothing else").toEqual([]);
});

for (const [locale, lang, heading] of [
  ["en-US", "en", "Retention and the archive"],
  ["zh-TW", "zh-TW", "保存期限與封存"],
  ["zh-CN", "zh-CN", "保留期限与归档"],
] as const) {
  for (const width of [1440, 390]) {
    test(`the retention page in ${lang} at ${width} px: no sideways scroll, photographed`, async ({ browser }) => {
      const page = await adminAt(browser, width, locale);
      const problems = watchErrors(page);
      await page.goto("/admin/retention");
      await waitInteractive(page);
      await expect(page.locator("html")).toHaveAttribute("lang", lang);
      await expect(page.getByTestId("retention").getByRole("heading", { level: 2 })).toHaveText(heading);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, `/admin/retention at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `screenshots/admin-retention-${lang}-${width}.png`, fullPage: true });
      expect(problems).toEqual([]);
    });
  }
}
