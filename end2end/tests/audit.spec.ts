// The auditor's tools on the demo data: the audit page with its filters, an export downloaded from
// the browser that `opledger audit verify` accepts, and the server refusing an auditor's change.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { signIn, USERS, waitForDemo, watchErrors } from "./helpers";

const binary = process.env.OPLEDGER_E2E_BIN ?? "../target/release/opledger";

test.describe.configure({ mode: "serial" });

test("an auditor filters the audit trail, exports it, and the download verifies offline", async ({ page }) => {
  test.setTimeout(120_000);
  const problems = watchErrors(page);
  await signIn(page, USERS.auditor, "/audit");
  await waitForDemo(page);
  await page.goto("/audit");
  await expect(page.getByTestId("audit-event").first()).toBeVisible();
  await page.screenshot({ path: "screenshots/audit.png", fullPage: true });

  await page.getByLabel("Op id").fill("refund-1043-li_2");
  await page.getByTestId("apply-audit-filters").click();
  await expect(page).toHaveURL(/op_id=refund-1043-li_2/);
  const events = page.getByTestId("audit-event");
  await expect(events.first()).toContainText("refund-1043-li_2");
  for (const event of await events.all()) {
    await expect(event).toContainText("refund-1043-li_2");
  }
  await expect(page.getByTestId("partial-note")).toBeVisible();
  await page.screenshot({ path: "screenshots/audit-filtered.png", fullPage: true });

  await page.goto("/audit");
  const waiting = page.waitForEvent("download");
  await page.getByTestId("export-jsonl").click();
  const download = await waiting;
  expect(download.suggestedFilename()).toBe("opledger-audit-demo-all.jsonl");
  const path = "test-results/audit-export.jsonl";
  await download.saveAs(path);
  const lines = readFileSync(path, "utf8").trim().split("\n");
  const last = JSON.parse(lines[lines.length - 1]);
  expect([last.action, last.actor, last.role]).toEqual(["export", USERS.auditor, "auditor"]);
  const verdict = execFileSync(binary, ["audit", "verify", path], { encoding: "utf8" });
  expect(verdict).toContain(`OK: ${lines.length} events, the chain holds`);

  // The export is in the trail too (the demo's own work may have added entries above it since).
  await page.reload();
  await expect(page.getByTestId("audit-event").filter({ hasText: USERS.auditor }).filter({ hasText: "export" }).first()).toBeVisible();

  await page.goto("/operations?state=unknown");
  const operationsDownload = page.waitForEvent("download");
  await page.getByTestId("export-operations-jsonl").click();
  const operations = await operationsDownload;
  expect(operations.suggestedFilename()).toBe("opledger-operations-demo-all-filtered.jsonl");
  const exported = readFileSync(await operations.path(), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  expect(exported.length).toBeGreaterThan(0);
  for (const operation of exported) {
    expect(operation.state).toBe("unknown");
    expect(operation.attempts.length).toBeGreaterThan(0);
  }
  expect(problems).toEqual([]);
});

test("the server refuses an auditor's attempt to approve or reconcile", async ({ page }) => {
  await signIn(page, USERS.auditor, "/approvals");
  await expect(page.getByTestId("approval").first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toHaveCount(0);
  const csrf = await page.locator('input[name="csrf"]').first().inputValue();
  for (const [opId, action] of [["refund-1060-li_1", "approve"], ["refund-1043-li_1", "confirm_found"]]) {
    const refused = await page.request.post("/rpc/act", {
      form: { csrf, key: `auditor-${action}-${Date.now()}`, op_id: opId, action, reason: "", external_id: "", evidence: "" },
    });
    expect(refused.status(), `${action} ${opId}`).toBe(403);
  }
  await page.goto("/reconcile");
  await expect(page.getByRole("button", { name: "Query the provider now" })).toHaveCount(0);
});
