// API tokens in the console: an admin creates a token with a scope, sees its secret once, an
// agent's call with it succeeds (and one outside its scope is refused with 403), the list shows
// its last use, the admin revokes it after confirming, and the agent's next call is 401.
import { expect, test } from "@playwright/test";
import { signIn, USERS, waitInteractive, watchErrors } from "./helpers";

test("an admin creates a token, an agent calls with it, the admin revokes it and the next call is 401", async ({ page, request }) => {
  const problems = watchErrors(page);
  const name = `e2e-agent-${Date.now()}`;
  await signIn(page, USERS.admin, "/admin/access");
  const tokens = page.getByTestId("api-tokens");
  await expect(tokens.getByRole("heading", { name: "API tokens" })).toBeVisible();
  await waitInteractive(page);

  // Create: a name, the read scope only (agent tools is checked to begin with), 30 days.
  const form = tokens.getByTestId("create-token");
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Agent tools").uncheck();
  await form.getByLabel("Ledger read").check();
  await form.getByLabel("Expires in (days)").fill("30");
  await form.getByRole("button", { name: "Create token" }).click();
  const result = page.getByTestId("tokens-result");
  await expect(result).toContainText("shown only this once");
  const secret = (await result.textContent())?.match(/opl_[0-9a-f]+_[0-9a-f]+/)?.[0];
  expect(secret, "the secret is in the answer").toBeTruthy();
  await page.screenshot({ path: "screenshots/admin-tokens-created.png", fullPage: true });

  // The secret is shown once: the list never carries it.
  await page.reload();
  expect(await page.content()).not.toContain(secret!);
  const row = tokens.getByTestId("api-token").filter({ hasText: name });
  await expect(row).toHaveAttribute("data-status", "active");
  await expect(row).toContainText("Ledger read");
  await expect(row).toContainText(USERS.admin);
  await expect(row).toContainText("never used");

  // The agent calls with it: a read succeeds (404 for an operation that does not exist is an
  // answer, not a refusal), a write is outside its scope.
  const read = await request.get("/api/v1/operations/no-such-op", { headers: { authorization: `Bearer ${secret}` } });
  expect(read.status()).toBe(404);
  const write = await request.post("/api/v1/operations", {
    headers: { authorization: `Bearer ${secret}` },
    data: { op_id: "e2e-1", kind: "refund", subject: "order:e2e", provider: "stripe", params: {} },
  });
  expect(write.status()).toBe(403);
  expect((await write.json()).error).toMatchObject({ code: "insufficient_scope", scope: "write" });

  // Its last use shows, with the client's address.
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText("127.0.0.1", { timeout: 1000 });
  }).toPass({ timeout: 10_000 });

  // Revoke, after confirming in the dialog.
  await waitInteractive(page);
  await row.getByRole("button", { name: `Revoke ${name}…` }).click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toContainText("refused within a second");
  await dialog.getByTestId("confirm-yes").click();
  await expect(result).toContainText(`Revoked ${name}`);
  await expect(row).toHaveAttribute("data-status", "revoked");

  // The agent's next call is refused as unauthorized.
  await expect(async () => {
    const after = await request.get("/api/v1/operations/no-such-op", { headers: { authorization: `Bearer ${secret}` } });
    expect(after.status()).toBe(401);
    expect((await after.json()).error.code).toBe("unauthorized");
  }).toPass({ timeout: 2_000 });
  expect(problems).toEqual([]);
});
