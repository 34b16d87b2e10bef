// The console shell: served by the server, readable without JavaScript, interactive once hydrated.
import { expect, test } from "@playwright/test";

test("the shell hydrates: the connection check works only once the wasm runs", async ({ page }) => {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });

  await page.goto("/");
  await expect(page).toHaveTitle("Overview · opledger");
  const check = page.getByTestId("check-connection");
  await expect(check).toBeEnabled();
  await check.click();
  await expect(page.getByRole("status")).toHaveText(/^Database sqlite reachable \(\d+ ms\)\.$/);

  await page.getByRole("link", { name: "Operations" }).click();
  await expect(page).toHaveURL(/\/operations$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Operations");
  await expect(page.getByRole("link", { name: "Operations" })).toHaveAttribute("aria-current", "page");

  await page.goto("/");
  await page.screenshot({ path: "screenshots/overview.png", fullPage: true });
  expect(problems).toEqual([]);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("every section is readable and the interactive button stays disabled", async ({ page }) => {
    for (const [path, heading] of [
      ["/", "Overview"],
      ["/operations", "Operations"],
      ["/orders", "Orders"],
      ["/approvals", "Approvals"],
      ["/reconcile", "Reconcile"],
      ["/audit", "Audit"],
    ]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    }
    await expect(page.getByTestId("check-connection")).toBeDisabled();
  });

  test("an unknown address shows the 404 page", async ({ page }) => {
    const response = await page.goto("/nowhere");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
    await page.screenshot({ path: "screenshots/not-found.png", fullPage: true });
  });
});
