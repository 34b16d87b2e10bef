// People leave: an admin adds a manager, the manager approves a refund an agent asked for, the
// admin deactivates the manager (the manager's tokens are revoked with them), and the manager's
// next click is the sign-in page, where their password no longer works. The people and access
// pages are photographed at 1440 and 390 px.
import { expect, test, type Browser } from "@playwright/test";
import { PASSWORD, signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

async function pageAt(browser: Browser, width = 1440) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  return context.newPage();
}

test("a manager who approved a refund is deactivated, and their next click is the sign-in page", async ({ browser, request }) => {
  test.setTimeout(120_000);
  const admin = await pageAt(browser);
  const problems = watchErrors(admin);
  await signIn(admin, USERS.admin, "/admin");
  await waitForDemo(admin);
  await admin.goto("/admin");
  await waitInteractive(admin);
  const stamp = Date.now();
  const name = `leaving.manager.${stamp}`;

  // The admin adds a manager.
  const addUser = admin.getByTestId("add-user");
  await addUser.getByLabel("Name", { exact: true }).fill(name);
  await addUser.getByLabel("Role").selectOption("manager");
  await addUser.getByLabel(/^Password/).fill(PASSWORD);
  await addUser.getByRole("button", { name: "Add user" }).click();
  await expect(admin.getByTestId("users")).toContainText(name);

  // An agent asks for a refund over the demo's approval threshold, with a token the admin made.
  await admin.goto("/admin/access");
  await waitInteractive(admin);
  const tokens = admin.getByTestId("api-tokens");
  const form = tokens.getByTestId("create-token");
  await form.getByLabel("Name").fill(`people-agent-${stamp}`);
  await form.getByLabel("Ledger write").check();
  await form.getByRole("button", { name: "Create token" }).click();
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

  // The manager signs in and approves it.
  const manager = await pageAt(browser);
  await signIn(manager, name, "/approvals");
  const card = manager.getByTestId("approval").filter({ hasText: opId });
  await card.getByRole("button", { name: "Approve" }).click();
  await expect(manager.getByTestId("action-result")).toContainText(opId);

  // The admin deactivates the manager, with a reason.
  await admin.goto("/admin");
  await waitInteractive(admin);
  const row = admin.getByTestId("person").filter({ hasText: name });
  await row.getByText("Change…").click();
  const change = row.getByTestId("change-person");
  await change.getByLabel("What").selectOption("deactivate");
  await change.getByLabel(/^Reason/).fill("left the company");
  await change.getByRole("button", { name: "Apply" }).click();
  await expect(admin.getByTestId("people-result")).toContainText(`${name} is deactivated`);
  await expect(admin.getByTestId("person").filter({ hasText: name })).toContainText("Deactivated");
  await admin.screenshot({ path: "screenshots/admin-people-1440.png", fullPage: true });

  // The manager's next click is the sign-in page, and the password no longer opens the console.
  await manager.getByRole("link", { name: "Operations" }).click();
  await expect(manager).toHaveURL(/\/login\?next=/);
  await manager.getByLabel("Name").fill(name);
  await manager.getByLabel("Password").fill(PASSWORD);
  await manager.getByRole("button", { name: "Sign in" }).click();
  await expect(manager.getByRole("alert")).toContainText("do not match");

  // The approval stays attributed to the manager who left.
  await admin.goto(`/operations/${opId}`);
  await expect(admin.getByTestId("audit")).toContainText(`${name} (manager)`);
  expect(problems).toEqual([]);
  await manager.context().close();
  await admin.context().close();
});

test("the admin pages read well on a phone", async ({ browser }) => {
  for (const width of [1440, 390]) {
    const page = await pageAt(browser, width);
    await signIn(page, USERS.admin, "/admin");
    for (const [path, shot] of [["/admin", "people"], ["/admin/access", "access"]]) {
      await page.goto(path);
      await waitInteractive(page);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      expect(sideways, `${path} at ${width} px scrolls sideways`).toBe(false);
      await page.screenshot({ path: `screenshots/admin-${shot}-${width}.png`, fullPage: true });
    }
    await page.context().close();
  }
});
