// The review workflows on the demo data: a manager approves a refund someone else asked for and
// sees it sent and succeeded, and is refused her own request; support records a compensation on
// a partial-success order and runs a bulk query over the unknown refunds of an order; a form sent
// with JavaScript off still acts and says what it did. Every change shows in the operation's
// audit trail.
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { signIn, USERS, waitForDemo, watchErrors } from "./helpers";

test.describe.configure({ mode: "serial" });

const sessions = new Map<string, Awaited<ReturnType<BrowserContext["storageState"]>>>();

/** A page signed in as `user`: sign-in is rate-limited per name, so each user signs in once. */
async function pageAs(browser: Browser, user: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  if (!sessions.has(user)) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, user);
    sessions.set(user, await context.storageState());
    await context.close();
  }
  const context = await browser.newContext({ storageState: sessions.get(user), ...options });
  return context.newPage();
}

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  const page = await pageAs(browser, USERS.support);
  await waitForDemo(page);
  await page.context().close();
});

test("a manager approves a refund another user requested and sees it sent and succeeded", async ({ browser }) => {
  const page = await pageAs(browser, USERS.manager);
  const problems = watchErrors(page);
  await page.goto("/approvals");
  const card = page.getByTestId("approval").filter({ hasText: "refund-1060-li_1" });
  await expect(card).toContainText("NT$2,500");
  await expect(card).toContainText("requested by demo-agent");
  await page.screenshot({ path: "screenshots/approvals.png", fullPage: true });
  await card.getByLabel("Reason (optional)").fill("receipt and return label checked");
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByTestId("action-result")).toContainText(/Approved and sent: refund-1060-li_1 succeeded as re_\w+\./);
  await expect(page.getByTestId("approval").filter({ hasText: "refund-1060-li_1" })).toHaveCount(0);

  await page.goto("/operations/refund-1060-li_1");
  await expect(page.locator(".page-head .badge").first()).toHaveText("succeeded");
  await expect(page.getByTestId("external-ids")).toContainText(/re_/);
  const audit = page.getByTestId("audit");
  await expect(audit).toContainText("maria.manager (manager)");
  await expect(audit).toContainText("approve");
  await expect(audit).toContainText("receipt and return label checked");
  await expect(audit).toContainText("record outcome");
  await page.screenshot({ path: "screenshots/operation-approved.png", fullPage: true });
  expect(problems).toEqual([]);
  await page.context().close();
});

test("the same manager is refused approval of her own request, on the page and by the server", async ({ browser }) => {
  const page = await pageAs(browser, USERS.manager);
  await page.goto("/approvals");
  const card = page.getByTestId("approval").filter({ hasText: "refund-1077-li_1" });
  await expect(card).toContainText("requested by maria.manager");
  await expect(card.getByTestId("refusal")).toHaveText("You requested this operation; another manager must decide on it.");
  await expect(card.getByRole("button", { name: "Approve" })).toHaveCount(0);

  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  const forged = await page.request.post("/rpc/act", {
    form: { csrf, key: `forged-${Date.now()}`, op_id: "refund-1077-li_1", action: "approve", reason: "", external_id: "", evidence: "" },
  });
  expect(forged.status()).toBe(422);
  expect(await forged.text()).toContain("another manager must decide");
  await page.goto("/operations/refund-1077-li_1");
  await expect(page.locator(".page-head .badge").first()).toHaveText("pending approval");
  await expect(page.getByTestId("audit")).not.toContainText("approve");
  await page.context().close();
});

test("support records a compensation on a partial-success order and it shows with its own state", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  const problems = watchErrors(page);
  await page.goto("/orders/order:2002");
  await expect(page.getByTestId("order-status")).toHaveText("partial success");
  const panel = page.getByTestId("compensations");
  await page.screenshot({ path: "screenshots/order-compensate.png", fullPage: true });
  await panel.locator('form[data-compensation="cancel_ticket"]').getByRole("button").click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toContainText("The after-sale ticket for Travel adapter will be cancelled at the after-sale service.");
  await dialog.getByTestId("confirm-yes").click();
  await expect(page.getByTestId("action-result")).toContainText(
    "Recorded cancel-aftersale-2002-li_1 to compensate aftersale-2002-li_1: cancel-aftersale-2002-li_1 succeeded",
  );
  await expect(page.getByTestId("line-item").filter({ hasText: "Travel adapter" })).toContainText(/cancellation of the after-sale ticket for Travel adapter/i);
  await page.getByText("Details: every operation with its ids").click();
  const row = page.getByTestId("order-operations").getByRole("row").filter({ hasText: "cancel-aftersale-2002-li_1" });
  await expect(row).toContainText("succeeded");
  await expect(row).toContainText("aftersale-2002-li_1");
  await expect(page.getByTestId("order-status")).toHaveText("compensated");
  await page.screenshot({ path: "screenshots/order-compensated.png", fullPage: true });

  await page.goto("/operations/cancel-aftersale-2002-li_1");
  await expect(page.getByTestId("audit")).toContainText("sam.support (support)");
  await expect(page.getByTestId("audit")).toContainText("register");
  expect(problems).toEqual([]);
  await page.context().close();
});

test("a bulk query over the unknown refunds of an order shows each result", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  const problems = watchErrors(page);
  await page.goto("/operations?state=unknown&subject=order%3A1077");
  await expect(page.getByTestId("operation-row")).toHaveCount(3);
  await page.getByTestId("bulk-link").click();
  await expect(page).toHaveURL(/\/bulk\?state=unknown&subject=order%3A1077/);
  await expect(page.getByTestId("bulk-matching")).toHaveText("3");
  await expect(page.getByTestId("bulk-actionable")).toHaveText("3");
  await page.screenshot({ path: "screenshots/bulk-preview.png", fullPage: true });
  await page.getByTestId("bulk-confirm").click();
  await expect(page).toHaveURL(/\/bulk\/\w+/);
  await expect(page.getByTestId("bulk-progress")).toContainText("Done: 3 of 3", { timeout: 30_000 });
  await expect(page.getByTestId("bulk-progress")).toContainText("3 confirmed");
  const items = page.getByTestId("bulk-item");
  await expect(items).toHaveCount(3);
  for (const item of await items.all()) {
    await expect(item).toContainText("confirmed");
    await expect(item).toContainText(/The provider has it as re_\w+/);
  }
  await page.screenshot({ path: "screenshots/bulk-results.png", fullPage: true });

  await page.goto("/operations/refund-1077-li_3");
  await expect(page.locator(".page-head .badge").first()).toHaveText("succeeded");
  await expect(page.getByTestId("audit")).toContainText("sam.support (support)");
  await expect(page.getByTestId("audit")).toContainText("confirm found");
  expect(problems).toEqual([]);
  await page.context().close();
});

test.describe("with JavaScript off", () => {
  test("an escalation is a plain form that returns to the page and says what it did", async ({ browser }) => {
    const page = await pageAs(browser, USERS.support, { javaScriptEnabled: false });
    await page.goto("/operations/refund-1043-li_1");
    const form = page.locator('form[data-action="escalate"]');
    await form.getByLabel("Note for the reviewer").fill("customer's bank shows nothing yet");
    await form.getByRole("button", { name: "Escalate" }).click();
    await expect(page).toHaveURL(/\/operations\/refund-1043-li_1\?done=/);
    await expect(page.getByTestId("action-result")).toHaveText("Escalated: refund-1043-li_1 now waits for a person's review.");
    await expect(page.locator(".page-head .badge").first()).toHaveText("needs review");
    await expect(page.getByTestId("audit")).toContainText("customer's bank shows nothing yet");
    await page.screenshot({ path: "screenshots/operation-escalated-nojs.png", fullPage: true });
    await page.context().close();
  });
});
