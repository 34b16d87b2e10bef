// People leave: a manager signs in through the company's identity provider (a real OpenID
// provider, tests/oidc, whose person "lena" is in the group the demo maps to manager) and approves
// a refund an agent asked for; an admin deactivates her, and her next click is the sign-in page,
// where the provider's word no longer lets her in. The people and access pages are photographed
// at 1440 and 390 px.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

async function pageAt(browser: Browser, width = 1440) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  return context.newPage();
}

/** Signs `login` in through the demo's identity provider (any password, then consent when it
 * asks), waiting for the console when `lands`. */
async function signInWithCompany(page: Page, login: string, lands = true) {
  await expect(async () => {
    await page.goto(`/login?account=demo.example`);
    await expect(page.getByRole("button", { name: "Sign in with Demo ID" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 60_000 });
  await page.getByLabel("Work e-mail or organisation").fill(`${login}@demo.example`);
  await page.getByRole("button", { name: "Sign in with Demo ID" }).click();
  const atProvider = page.locator('input[name="login"]');
  const consent = page.getByRole("button", { name: "Continue" });
  const back = page.getByTestId("whoami").or(page.getByRole("alert"));
  await expect(atProvider.or(consent).or(back).first()).toBeVisible();
  if (await atProvider.isVisible()) {
    await atProvider.fill(login);
    await page.locator('input[name="password"]').fill("her password at the provider");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await expect(consent.or(back).first()).toBeVisible();
  }
  if (await consent.isVisible()) await consent.click();
  if (lands) await expect(page.getByTestId("whoami")).toContainText(`${login}@demo.example`);
}

test("a manager who approved a refund is deactivated, and their next click is the sign-in page", async ({ browser, request }) => {
  test.setTimeout(120_000);
  const admin = await pageAt(browser);
  const problems = watchErrors(admin);
  await signIn(admin, USERS.admin, "/admin");
  await waitForDemo(admin);
  const stamp = Date.now();
  const name = "lena@demo.example";

  // An agent asks for a refund over the demo's approval threshold, with a token the admin made.
  await admin.goto("/admin/access");
  await waitInteractive(admin);
  const tokens = admin.getByTestId("api-tokens");
  const form = tokens.getByTestId("create-token");
  await form.getByLabel("Name").fill(`people-agent-${stamp}`);
  await form.getByLabel("Ledger write").check();
  await form.getByRole("button", { name: "Create token" }).click();
  await expect(admin.getByTestId("tokens-result")).toContainText("opl_");
  const secret = (await admin.getByTestId("tokens-result").textContent())?.match(/opl_[0-9a-f]+_[0-9a-f]+/)?.[0];
  expect(secret, "the token's secret is shown once").toBeTruthy();
  const opId = `refund-people-${stamp}`;
  const registered = await request.post("/api/v1/operations", {
    headers: { authorization: `Bearer ${secret}` },
    data: {
      op_id: opId,
      kind: "refund",
      subject: `order:people-${stamp}`,
      provider: "stripe",
      params: { payment_intent: `pi_people_${stamp}`, amount: { minor: 250000, currency: "TWD" }, reason: "requested_by_customer" },
      requested_by: "people-agent",
    },
  });
  expect(registered.status()).toBe(201);

  // The manager signs in with her company account and approves it.
  const manager = await pageAt(browser);
  await signInWithCompany(manager, "lena");
  await manager.goto("/approvals");
  const card = manager.getByTestId("approval").filter({ hasText: opId });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(manager.getByTestId("action-result")).toContainText(opId);

  // The admin deactivates the manager, with a reason.
  await admin.goto("/admin");
  await waitInteractive(admin);
  const row = admin.locator(`[data-testid="person"][data-name="${name}"]`);
  await row.getByText("Change…").click();
  const change = row.getByTestId("change-person");
  await change.getByLabel("What").selectOption("deactivate");
  await change.getByLabel(/^Reason/).fill("left the company");
  await change.getByRole("button", { name: "Apply" }).click();
  await expect(admin.getByTestId("people-result")).toContainText(`${name} is deactivated`);
  await expect(row).toContainText("Deactivated");

  // Her next click is the sign-in page, and the provider's word no longer lets her in.
  await manager.getByRole("link", { name: "Operations" }).click();
  await expect(manager).toHaveURL(/\/login\?next=/);
  await signInWithCompany(manager, "lena", false);
  await expect(manager.getByRole("alert")).toContainText("deactivated");
  await expect(manager.getByTestId("whoami")).toHaveCount(0);

  // The approval stays attributed to the manager who left.
  await admin.goto(`/operations/${opId}`);
  await expect(admin.getByTestId("audit")).toContainText(`${name} (manager)`);

  // The people and access pages read well on a phone too.
  for (const width of [1440, 390]) {
    await admin.setViewportSize({ width, height: 900 });
    for (const [path, shot] of [["/admin", "people"], ["/admin/access", "access"]]) {
      await admin.goto(path);
      await waitInteractive(admin);
      const sideways = await admin.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      expect(sideways, `${path} at ${width} px scrolls sideways`).toBe(false);
      await admin.screenshot({ path: `screenshots/admin-${shot}-${width}.png`, fullPage: true });
    }
  }
  // The provider's development pages load a web font that is not reachable here; nothing else.
  expect(problems.filter((problem) => !/fonts\.googleapis|ERR_|Failed to load resource/.test(problem))).toEqual([]);
  await manager.context().close();
  await admin.context().close();
});
