// Sign-in through the company's identity provider: a real OpenID provider (tests/oidc, started by
// playwright.config.ts with its demo.json), whose person "maria" is in the group the demo tenant
// maps to manager. She types her work e-mail, signs in at the provider, and lands on the console
// as a manager.
import { expect, test } from "@playwright/test";
import { watchErrors } from "./helpers";

test("a manager signs in through the company's identity provider and lands on the console", async ({ page, baseURL }) => {
  const problems = watchErrors(page);
  // The demo connects its identity provider in the background at start-up.
  await expect(async () => {
    await page.goto("/login?account=demo.example");
    await expect(page.getByRole("button", { name: "Sign in with Demo ID" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 60_000 });

  await page.getByLabel("Work e-mail or organisation").fill("maria@demo.example");
  await page.getByRole("button", { name: "Sign in with Demo ID" }).click();

  // The provider's own pages: any password, then consent.
  await expect(page).not.toHaveURL(new RegExp(`^${baseURL}`));
  await page.locator('input[name="login"]').fill("maria");
  await page.locator('input[name="password"]').fill("her password at the provider");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();

  await expect(page.getByTestId("whoami")).toContainText("maria@demo.example");
  await expect(page).toHaveURL(`${baseURL}/`);
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Approvals");

  // The provider's development pages load a web font that is not reachable here; nothing else.
  expect(problems.filter((problem) => !/fonts\.googleapis|ERR_|Failed to load resource/.test(problem))).toEqual([]);
});
