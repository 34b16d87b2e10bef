// The console in support's language, walked as its users: an order page that says what happened
// and what to tell the customer, a search that finds by prefix, risky buttons that ask first,
// approval rules checked before they are saved, pages that update themselves, controls only for
// the roles that may use them, phone width, the keyboard, and an accessibility check of every page
// for every role, photographed at desktop and phone width into screenshots/.
import { resolve } from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

/** axe-core from end2end's npm packages (the tests run from end2end/). */
const axePath = resolve("node_modules/axe-core/axe.min.js");

test.describe.configure({ mode: "serial" });

/** Each role signs in once (sign-ins are limited per name); its pages reuse the session. */
const sessions = new Map<string, Awaited<ReturnType<import("@playwright/test").BrowserContext["storageState"]>>>();

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  for (const name of Object.values(USERS)) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, name);
    if (name === USERS.support) await waitForDemo(page);
    sessions.set(name, await context.storageState());
    await context.close();
  }
});

/** A new window of `name`'s session, `width` wide, on the overview, of a browser asking for
 * `locale`; `forAxe` lets axe-core's script in past the Content-Security-Policy (which the
 * shell's tests check on their own). */
async function pageAs(browser: Browser, name: string, width = 1440, forAxe = false, locale = "en-US"): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, storageState: sessions.get(name), bypassCSP: forAxe, locale });
  const page = await context.newPage();
  await page.goto("/");
  await expect(page.getByTestId("whoami")).toContainText(name);
  return page;
}

/** What each state's sentence says, whatever the operation. */
const SAID: Record<string, RegExp> = {
  planned: /not yet sent to/,
  pending_approval: /waits for a manager's approval; nothing has been sent/,
  approved: /was approved and is waiting to be sent/,
  denied: /was denied by a manager; nothing was sent/,
  submitted: /which has not answered yet\. Do not .* again/,
  succeeded: /confirmed the .*It is done; do not .* again/,
  rejected: /declined the .*; nothing was done/,
  unknown: /did not answer in time; we are checking whether it happened\. Do not .* again/,
  needs_review: /checking has not settled whether it happened; a reconciler is reviewing it/,
  cancelled: /was cancelled; nothing more will be sent/,
};

test("each order page tells every line item's story in words, with a sentence for the customer", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  const problems = watchErrors(page);
  const seen = new Set<string>();
  for (const order of ["1043", "A1042", "1060", "2002", "1051", "1088", "1092"]) {
    await page.goto(`/orders/order:${order}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Order ${order}`);
    await expect(page.getByTestId("line-item").first()).toBeVisible();
    await expect(page.getByTestId("order-money")).toContainText("Still refundable");
    for (const story of await page.getByTestId("story").all()) {
      const state = (await story.getAttribute("data-state"))!;
      seen.add(state);
      await expect(story.locator(".story-status"), `${order} ${state}`).toHaveText(SAID[state]);
      await expect(story.getByTestId("say")).not.toBeEmpty();
    }
  }
  await page.goto("/orders/order:1043");
  await expect(page.getByTestId("line-item").filter({ hasText: "Headphone case" })).toContainText(/refund of NT\$380 for Headphone case/i);
  await page.screenshot({ path: "screenshots/order-in-words.png", fullPage: true });
  for (const state of ["succeeded", "unknown", "pending_approval", "denied", "rejected", "cancelled", "needs_review", "submitted"]) {
    expect(seen, `the demo's orders show a ${state} operation`).toContain(state);
  }
  expect(problems).toEqual([]);
  await page.context().close();
});

test("the search box, reached with /, finds an operation by the start of its external id", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  await page.goto("/operations/refund-A1042-li_1");
  const external = (await page.getByTestId("external-ids").locator(".mono").first().textContent())!.trim();
  expect(external).toMatch(/^re_/);
  await waitInteractive(page);
  await page.keyboard.press("/");
  await expect(page.getByTestId("global-search")).toBeFocused();
  await page.keyboard.type(external.slice(0, 6));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${external.slice(0, 6)}`));
  await expect(page.getByTestId("found-operations")).toContainText("refund-A1042-li_1");
  await expect(page.getByTestId("found-operations")).toContainText(external);
  await page.screenshot({ path: "screenshots/search.png", fullPage: true });
  await page.getByTestId("global-search").fill("#1043");
  await page.getByTestId("global-search").press("Enter");
  await expect(page.getByTestId("found-orders")).toContainText("order:1043");
  await page.context().close();
});

test("filters of closed sets take several values: the states that exist, the kinds and providers recorded", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  await page.goto("/operations");
  const state = page.getByTestId("filter-state");
  await state.locator("summary").click();
  await state.getByLabel("unknown", { exact: true }).check();
  await state.getByLabel("needs review", { exact: true }).check();
  const kind = page.getByTestId("filter-kind");
  await kind.locator("summary").click();
  await kind.getByLabel("refund", { exact: true }).check();
  await page.getByTestId("apply-filters").click();
  await expect(page).toHaveURL(/state=unknown&state=needs_review&kind=refund/);
  const rows = page.getByTestId("operation-row");
  await expect(rows.first()).toBeVisible();
  await expect(page.locator('[data-testid="operation-row"]:not([data-state="unknown"]):not([data-state="needs_review"])')).toHaveCount(0);
  await expect(page.locator('[data-testid="operation-row"][data-state="needs_review"]').first()).toBeVisible();
  await expect(state.locator("summary")).toHaveText("unknown, needs review");
  await page.screenshot({ path: "screenshots/operations-two-states.png", fullPage: true });
  await page.context().close();
});

test("a re-send asks first, restating the amount and what it does; going back sends nothing", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  await page.goto("/operations/refund-1077-li_2");
  await waitInteractive(page);
  const actions = page.locator(".action-forms form");
  await expect(actions.first()).toHaveAttribute("data-action", "confirm_found");
  await expect(actions.first().getByRole("button")).toHaveClass(/primary/);
  const attempts = await page.getByTestId("attempts").locator("tbody tr").count();
  await page.locator('form[data-action="resend_same_key"]').getByRole("button").click();
  const dialog = page.getByTestId("confirm-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("The refund of NT$450 will be sent to Stripe again with the same idempotency key");
  await expect(dialog.getByRole("button", { name: "Go back" })).toBeFocused();
  await page.screenshot({ path: "screenshots/confirm-resend.png" });
  await dialog.getByRole("button", { name: "Go back" }).click();
  await expect(dialog).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("attempts").locator("tbody tr")).toHaveCount(attempts);
  await expect(page.locator(".page-head .badge").first()).toHaveText("unknown");
  await page.context().close();
});

test("an action's answer shows beside the row it was taken on", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  await page.goto("/reconcile");
  await waitInteractive(page);
  const row = page.getByTestId("desk-row").filter({ hasText: "refund-1043-li_1" });
  await row.getByRole("button", { name: "Query the provider now" }).click();
  await expect(row.getByRole("status")).toContainText("Nothing was changed");
  await expect(page.getByTestId("action-result")).toBeEmpty();
  await page.screenshot({ path: "screenshots/reconcile-answer-in-row.png", fullPage: true });
  await page.context().close();
});

test("a rule written 500,00 is refused with a clear message; a preview says what it would catch", async ({ browser }) => {
  const page = await pageAs(browser, USERS.admin);
  await page.goto("/admin/policy");
  await waitInteractive(page);
  await page.evaluate(() => ((window as unknown as { untouched: boolean }).untouched = true));
  const policy = page.getByTestId("approval-policy");
  const rules = await policy.getByTestId("approval-rules").getByRole("listitem").count();
  await policy.getByLabel("Kind").selectOption("refund");
  await policy.getByLabel(/^From amount/).fill("500,00");
  await policy.getByLabel("Currency").fill("usd");
  await policy.getByRole("button", { name: "Add rule" }).click();
  await expect(page.getByTestId("policy-result")).toHaveText(
    "\"500,00\" is not an amount in USD; write it like 1000.00. A comma may only separate thousands (1,000.00); write cents after a point.",
  );
  await expect(policy.getByLabel(/^From amount/)).toHaveValue("500,00");
  await policy.getByLabel(/^From amount/).fill("500.00");
  await policy.getByLabel("Currency").fill("TWD");
  await policy.getByTestId("preview-rule").click();
  await expect(page.getByTestId("policy-result")).toContainText(/^Preview, nothing saved: refund operations from TWD 500\.00 up need a manager's approval\. It would have caught \d+ of the last \d+ refund operations/);
  await expect(policy.getByTestId("approval-rules").getByRole("listitem")).toHaveCount(rules);
  expect(await page.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(true);
  await page.screenshot({ path: "screenshots/admin-rule-preview.png", fullPage: true });
  await page.context().close();
});

test("an operation's page updates itself after another session changes it", async ({ browser }) => {
  const watcher = await pageAs(browser, USERS.manager);
  await watcher.goto("/operations/refund-A1042-li_3");
  await waitInteractive(watcher);
  await expect(watcher.locator(".page-head .badge").first()).toHaveText("submitted");
  const actor = await pageAs(browser, USERS.support);
  await actor.goto("/operations/refund-A1042-li_3");
  const escalate = actor.locator('form[data-action="escalate"]');
  await escalate.getByLabel("Note for the reviewer").fill("the sender stopped; checking by hand");
  await escalate.getByRole("button", { name: "Escalate" }).click();
  await expect(actor.getByTestId("action-result")).toContainText("now waits for a person's review");
  await expect(watcher.locator(".page-head .badge").first()).toHaveText("needs review", { timeout: 15_000 });
  await expect(watcher.getByTestId("told")).toContainText("a reconciler is reviewing it");
  await watcher.context().close();
  await actor.context().close();
});

test("controls show only to the roles that may use them, and the nav counts approvals waiting", async ({ browser }) => {
  const auditor = await pageAs(browser, USERS.auditor);
  await auditor.goto("/operations");
  await expect(auditor.getByTestId("apply-filters")).toBeVisible();
  await expect(auditor.getByTestId("bulk-link")).toHaveCount(0);
  await auditor.goto("/reconcile");
  await expect(auditor.getByRole("button", { name: "Query the provider now" })).toHaveCount(0);
  await auditor.context().close();

  const support = await pageAs(browser, USERS.support);
  await support.goto("/operations");
  await expect(support.getByTestId("bulk-link")).toBeVisible();
  await expect(support.getByTestId("approvals-waiting")).toHaveCount(0);
  await support.context().close();

  const manager = await pageAs(browser, USERS.manager);
  await expect(manager.getByTestId("approvals-waiting")).toHaveText(/^\d+ waiting$/);
  await manager.getByRole("link", { name: /^\d+ pending approval$/ }).click();
  await expect(manager).toHaveURL(/\/approvals$/);
  await manager.context().close();
});

test("attempts and evidence read in words, the raw record behind Details", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  await page.goto("/operations/refund-1043-li_2");
  await expect(page.getByTestId("told")).toContainText("Tell the customer:");
  const evidence = page.getByTestId("audit").locator("details.evidence").first();
  await expect(evidence).not.toHaveAttribute("open", "");
  await expect(evidence.locator("code")).toBeHidden();
  await page.goto("/conflicts");
  await expect(page.getByTestId("diff").first()).toContainText(/CNY \d+\.\d\d/);
  await page.context().close();
});

test("the keyboard: skip to content moves focus, a new page focuses its heading, and focus is visible", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support);
  await waitInteractive(page);
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" }).click();
  await expect(page).toHaveURL(/\/orders$/);
  await waitInteractive(page);
  await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
  await page.goto("/operations");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("#main")).toBeFocused();
  await page.keyboard.press("Tab");
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineColor);
  const [r, g, b] = ring.match(/\d+/g)!.map(Number);
  const luminance = (value: number) => {
    const channel = value / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  };
  const contrast = 1.05 / (0.2126 * luminance(r) + 0.7152 * luminance(g) + 0.0722 * luminance(b) + 0.05);
  expect(contrast, `focus ring ${ring} on white`).toBeGreaterThanOrEqual(3);
  await page.context().close();
});

/** The pages each role opens. */
const PAGES_OF: Record<string, string[]> = {
  support: ["/", "/operations", "/operations/refund-1043-li_2", "/orders", "/orders/order:1043", "/conflicts", "/reconcile", "/search?q=1043", "/bulk?state=unknown", "/account/notifications"],
  manager: ["/", "/operations", "/operations/refund-1060-li_1", "/orders", "/orders/order:2002", "/conflicts", "/reconcile", "/approvals", "/audit", "/search?q=re_", "/bulk?state=unknown"],
  auditor: ["/", "/operations", "/operations/refund-A1042-li_1", "/orders", "/orders/order:A1042", "/conflicts", "/reconcile", "/approvals", "/audit", "/search?q=1"],
  admin: ["/", "/operations", "/operations/refund-1051-li_2", "/orders", "/orders/order:1051", "/conflicts", "/reconcile", "/approvals", "/audit", "/admin", "/admin/access", "/admin/providers", "/admin/policy", "/admin/webhooks", "/admin/notifications", "/account/notifications", "/search?q=alex"],
};

/** The console's languages, as a browser asks for them, and the `<html lang>` each gets. */
const LANGUAGES: [string, string][] = [["en-US", "en"], ["zh-TW", "zh-TW"], ["zh-CN", "zh-CN"]];

for (const [role, pages] of Object.entries(PAGES_OF)) {
  test(`every page of ${role} in every language: no serious accessibility problem, no sideways scroll at 390 px, the nav on one line at 1440 px, photographed`, async ({ browser }) => {
    test.setTimeout(540_000);
    for (const [locale, lang] of LANGUAGES) for (const width of [1440, 390]) {
      const page = await pageAs(browser, USERS[role as keyof typeof USERS], width, true, locale);
      const problems = watchErrors(page);
      for (const path of pages) {
        await page.goto(path);
        await waitInteractive(page);
        expect(await page.locator("html").getAttribute("lang"), `${path} for a browser asking ${locale}`).toBe(lang);
        // What the islands render in the browser comes from the words the page carries: none may
        // show as its key (ages, states and the live list are rendered there once interactive).
        const shownAsKeys = await page.evaluate(() => {
          const words = JSON.parse(document.getElementById("opledger-words")?.textContent ?? "{}") as Record<string, string>;
          const text = document.body.innerText;
          return Object.keys(words).length < 100 ? ["(the page carries no words)"] : Object.keys(words).filter((key) => key.includes("-") && text.includes(key));
        });
        expect(shownAsKeys, `${path} in ${lang}`).toEqual([]);
        if (width === 1440) {
          const rows = await page.locator(".topbar .nav > li").evaluateAll((items) => new Set(items.map((item) => (item as HTMLElement).offsetTop)).size);
          expect(rows, `${path} in ${lang}: the sections take ${rows} lines`).toBe(1);
        }
        const name = path.replace(/^\//, "").replace(/[^A-Za-z0-9_-]+/g, "-") || "overview";
        await page.screenshot({ path: `screenshots/pages/${lang}/${role}-${name}-${width}.png`, fullPage: true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${path} at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
        await page.addScriptTag({ path: axePath });
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
          const result = await axe.run(document);
          return result.violations
            .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
            .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).slice(0, 3).join(", ")}`);
        });
        expect(violations, `${path} at ${width} px`).toEqual([]);
      }
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });
}

test("the header's language menu keeps a user's choice across pages, and giving it back follows the browser again", async ({ browser }) => {
  const page = await pageAs(browser, USERS.support, 1440, false, "en-US");
  const problems = watchErrors(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  const menu = page.getByTestId("language-menu");
  await menu.locator("summary").click();
  await page.getByTestId("language-zh-TW").click();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-TW");
  await expect(page.getByRole("navigation", { name: "區塊" }).getByRole("link", { name: "訂單" })).toBeVisible();
  await page.goto("/orders/order:1043");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-TW");
  await expect(page.getByRole("main")).toContainText("NT$");
  await page.getByTestId("language-menu").locator("summary").click();
  await page.getByTestId("language-zh-CN").click();
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page).toHaveURL(/\/orders\/order:1043$/);
  await expect(page.getByRole("navigation", { name: "栏目" }).getByRole("link", { name: "订单" })).toBeVisible();
  await page.getByTestId("language-menu").locator("summary").click();
  await page.getByTestId("language-browser").click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Orders" })).toBeVisible();
  expect(problems).toEqual([]);
  await page.context().close();
});
