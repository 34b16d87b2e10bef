// The review console on the demo data, walked by each role: find an unknown operation, read its
// attempts and external ids, open a partial-success order and a conflict, follow live updates,
// and be refused what the role does not open. Every page is photographed into screenshots/.
import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

const binary = process.env.OPLEDGER_E2E_BIN ?? "../target/release/opledger";
const database = "sqlite://.e2e-data/e2e.db";

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  const page = await browser.newPage();
  await signIn(page, USERS.support);
  await waitForDemo(page);
  await page.close();
});

test("support finds an unknown refund, reads its attempts, and sees the order and the conflict", async ({ page }) => {
  const problems = watchErrors(page);
  await signIn(page, USERS.support);
  await page.screenshot({ path: "screenshots/overview.png", fullPage: true });

  await page.getByRole("link", { name: "Operations" }).click();
  await page.getByTestId("filter-state").locator("summary").click();
  await page.getByTestId("filter-state").getByLabel("unknown", { exact: true }).check();
  await page.getByTestId("apply-filters").click();
  await expect(page).toHaveURL(/\/operations\?state=unknown/);
  const rows = page.getByTestId("operation-row");
  await expect(rows.first()).toBeVisible();
  await expect(page.locator('[data-testid="operation-row"]:not([data-state="unknown"])')).toHaveCount(0);
  await page.screenshot({ path: "screenshots/operations-unknown.png", fullPage: true });

  await page.goBack();
  await expect(page).toHaveURL(/\/operations$/);
  await page.goForward();
  await expect(page).toHaveURL(/state=unknown/);

  await page.getByRole("link", { name: "refund-1043-li_2" }).click();
  await expect(page.getByTestId("op-id")).toHaveText("refund-1043-li_2");
  await expect(page.getByTestId("attempts")).toContainText("refund-1043-li_2");
  await expect(page.getByTestId("attempts")).toContainText("No answer in time");
  await expect(page.getByTestId("key-validity")).toContainText("left");
  await expect(page.locator('form[data-action="resend_same_key"]')).toContainText("Re-send with the same key");
  await page.screenshot({ path: "screenshots/operation-unknown.png", fullPage: true });

  await page.goto("/operations/refund-A1042-li_1");
  await expect(page.getByTestId("external-ids")).toContainText(/re_/);
  await page.screenshot({ path: "screenshots/operation-succeeded.png", fullPage: true });

  await page.getByRole("link", { name: "Orders" }).first().click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Orders");
  await page.screenshot({ path: "screenshots/orders.png", fullPage: true });
  await page.getByRole("link", { name: "order:2002" }).first().click();
  await expect(page.getByTestId("order-status")).toHaveText("partial success");
  await expect(page.getByTestId("effects-in-force")).toContainText("aftersale-2002-li_1");
  await page.screenshot({ path: "screenshots/order-partial-success.png", fullPage: true });

  await page.goto("/orders/order:1051");
  await expect(page.getByTestId("order-operations")).toContainText("cancel-aftersale-1051-li_2");
  await expect(page.getByTestId("order-operations")).toContainText("aftersale-1051-li_2");

  await page.getByRole("link", { name: "Conflicts" }).click();
  const conflict = page.getByTestId("conflict").first();
  await expect(conflict).toContainText("refund-A1042-li_1");
  await expect(conflict.getByTestId("diff")).toContainText("CNY 200.00");
  await page.screenshot({ path: "screenshots/conflicts.png", fullPage: true });

  expect(problems).toEqual([]);
  const admin = await page.goto("/admin");
  expect(admin?.status()).toBe(403);
  await expect(page.getByTestId("error")).toContainText("Your role does not allow this");
  await expect(page.getByRole("link", { name: "Admin" })).toHaveCount(0);
  await page.screenshot({ path: "screenshots/forbidden.png", fullPage: true });
});

test("support settles an unknown refund by querying the provider now", async ({ page }) => {
  const problems = watchErrors(page);
  await signIn(page, USERS.support, "/reconcile");
  const row = page.getByTestId("desk-row").filter({ hasText: "refund-1043-li_2" });
  await expect(row).toContainText("left");
  await page.screenshot({ path: "screenshots/reconcile.png", fullPage: true });
  await row.getByRole("button", { name: "Query the provider now" }).click();
  await expect(page.getByTestId("action-result")).toContainText(/The provider has it as re_\w+: refund-1043-li_2 is now succeeded\./);
  await expect(page.getByTestId("desk-row").filter({ hasText: "refund-1043-li_2" })).toHaveCount(0);
  await page.goto("/operations/refund-1043-li_2");
  await expect(page.getByTestId("external-ids")).toContainText(/re_/);
  await expect(page.getByTestId("audit")).toContainText("sam.support (support)");
  await expect(page.getByTestId("audit")).toContainText("confirm found");
  expect(problems).toEqual([]);
});

test("a new operation appears in an open list without a reload", async ({ page }) => {
  const streams: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/live/operations") streams.push(request.url());
  });
  await signIn(page, USERS.manager, "/operations");
  await expect(page.getByTestId("live")).toHaveText(/Live/);
  await expect(page.getByTestId("connection")).toHaveAttribute("data-interactive", "true");
  expect(streams, "one change stream for the page, the list's").toHaveLength(1);
  await page.evaluate(() => ((window as unknown as { untouched: boolean }).untouched = true));
  const token = execFileSync(binary, ["token", "create", "--database-url", database, "--tenant", "demo", "--name", `e2e-${Date.now()}`], { encoding: "utf8" }).trim();
  const response = await page.request.post("/api/v1/operations", {
    headers: { authorization: `Bearer ${token}` },
    data: {
      op_id: "refund-live-1",
      kind: "refund",
      subject: "order:live",
      provider: "stripe",
      params: { amount: { minor: 500, currency: "USD" } },
      requested_by: "e2e",
    },
  });
  expect(response.status()).toBe(201);
  await expect(page.getByRole("link", { name: "refund-live-1" })).toBeVisible({ timeout: 10_000 });
  expect(await page.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(true);
});

test("a manager sees approvals; an auditor reads the audit section but not admin", async ({ browser }) => {
  const manager = await browser.newPage();
  await signIn(manager, USERS.manager);
  expect((await manager.goto("/approvals"))?.status()).toBe(200);
  await expect(manager.getByRole("heading", { level: 1 })).toHaveText("Approvals");
  await manager.close();

  const auditor = await browser.newPage();
  await signIn(auditor, USERS.auditor);
  expect((await auditor.goto("/audit"))?.status()).toBe(200);
  expect((await auditor.goto("/admin"))?.status()).toBe(403);
  await auditor.close();
});

test("an admin adds a user and a rule, and a refused form says why beside it", async ({ page }) => {
  const problems = watchErrors(page);
  await signIn(page, USERS.admin, "/admin");
  await expect(page.getByTestId("users")).toContainText(USERS.support);
  const name = `new.support.${Date.now()}`;
  const addUser = page.getByTestId("add-user");
  await addUser.getByLabel("Name", { exact: true }).fill(name);
  await addUser.getByLabel("Role").selectOption("support");
  await addUser.getByLabel(/^Password/).fill("a long enough password");
  await addUser.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByRole("status").filter({ hasText: "can now sign in" })).toBeVisible();
  await expect(page.getByTestId("users")).toContainText(name);
  await page.screenshot({ path: "screenshots/admin.png", fullPage: true });

  // A refused form says why beside it and keeps what was typed, without a reload.
  await page.getByRole("navigation", { name: "Admin pages" }).getByRole("link", { name: "Policy" }).click();
  await expect(page).toHaveURL(/\/admin\/policy$/);
  await waitInteractive(page);
  await page.evaluate(() => ((window as unknown as { untouched: boolean }).untouched = true));
  const policy = page.getByTestId("approval-policy");
  await policy.getByLabel("Kind").selectOption("refund");
  await policy.getByLabel(/^From amount/).fill("500.00");
  await policy.getByRole("button", { name: "Add rule" }).click();
  await expect(page.getByTestId("policy-result")).toHaveText("A threshold needs its currency, for example TWD.");
  await expect(page.getByTestId("policy-result")).toHaveClass(/failed/);
  await expect(policy.getByLabel(/^From amount/)).toHaveValue("500.00");
  expect(await page.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(true);

  await policy.getByLabel("Currency").fill("TWD");
  await policy.getByRole("button", { name: "Add rule" }).click();
  await expect(page.getByTestId("policy-result")).toContainText("refund");
  await expect(page.getByTestId("policy-result")).not.toHaveClass(/failed/);
  await expect(page.getByTestId("approval-rules")).toContainText("TWD 500.00");
  await page.getByTestId("approval-rules").getByRole("listitem").filter({ hasText: "TWD 500.00" }).getByRole("button", { name: "Remove" }).click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toContainText("operations registered from now on that it caught are sent without a manager's approval");
  await dialog.getByTestId("confirm-yes").click();
  await expect(page.getByTestId("policy-result")).toContainText("The rule is removed");
  // The browser reports the refused request (422) in its console; nothing else may go wrong.
  expect(problems.filter((problem) => !problem.includes("status of 422"))).toEqual([]);
});

test("an admin connects a provider account and sees only its last four characters", async ({ browser }) => {
  for (const width of [1440, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const problems = watchErrors(page);
    await signIn(page, USERS.admin, "/admin/providers");
    const accounts = page.getByTestId("provider-accounts");
    await accounts.getByLabel("Provider").fill("stripe-eu");
    await accounts.getByLabel("Kind").selectOption("stripe");
    await accounts.getByLabel("Base URL").fill("https://api.stripe.com");
    await accounts.getByLabel("Secret key").fill(`sk_test_browser_${width}_c0de`);
    await accounts.getByRole("button", { name: "Save account" }).click();
    await expect(page.getByTestId("accounts-result")).toContainText("now go to this tenant's own account");
    await expect(page.getByTestId("connections")).toContainText("…c0de");
    expect(await page.content()).not.toContain(`sk_test_browser_${width}`);
    await page.screenshot({ path: `screenshots/admin-accounts-${width}.png`, fullPage: true });
    await page.getByTestId("connections").getByRole("button", { name: "Remove" }).click();
    await expect(page.getByTestId("accounts-result")).toContainText("Removed");
    await expect(accounts).toContainText("No accounts of its own");
    expect(problems).toEqual([]);
    await context.close();
  }
});

test("an admin adds a webhook endpoint, sees its secret once and the demo's deliveries, and sends one again", async ({ browser }) => {
  for (const width of [1440, 390]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    const problems = watchErrors(page);
    await signIn(page, USERS.admin, "/admin/webhooks");
    const webhooks = page.getByTestId("webhooks");
    // The demo points its webhooks at the sandbox's receiver: the seeded history was delivered.
    await expect(async () => {
      await page.reload();
      await expect(webhooks.getByTestId("webhook-deliveries").first()).toContainText("delivered", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await waitInteractive(page);
    await webhooks.getByLabel("URL").fill(`https://hooks.example.com/opledger-${width}`);
    await webhooks.getByLabel("operation.succeeded").check();
    await webhooks.getByLabel("operation.pending_approval").uncheck();
    await webhooks.getByRole("button", { name: "Add endpoint" }).click();
    await expect(page.getByTestId("webhooks-result")).toContainText("whsec_");
    await page.screenshot({ path: `screenshots/admin-webhooks-${width}.png`, fullPage: true });
    await page.reload();
    const added = webhooks.getByTestId("webhook-endpoint").filter({ hasText: `opledger-${width}` });
    await expect(added).toContainText("operation.succeeded, operation.unknown, operation.needs_review, order.partial_success");
    expect(await page.content()).not.toContain("whsec_");
    await waitInteractive(page);
    await webhooks.getByTestId("webhook-deliveries").first().getByRole("button", { name: "Resend" }).first().click();
    await expect(page.getByTestId("webhooks-result")).toContainText("sent again");
    await added.getByRole("button", { name: "Remove" }).click();
    const dialog = page.getByTestId("confirm-dialog");
    await expect(dialog).toContainText("gets no more events");
    await dialog.getByTestId("confirm-yes").click();
    await expect(page.getByTestId("webhooks-result")).toContainText("Removed");
    expect(problems).toEqual([]);
    await context.close();
  }
});

test("the overview and lists read well on a narrow screen", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signIn(page, USERS.manager);
  await page.screenshot({ path: "screenshots/overview-narrow.png", fullPage: true });
  await page.goto("/operations");
  await page.screenshot({ path: "screenshots/operations-narrow.png", fullPage: true });
  await context.close();
});
