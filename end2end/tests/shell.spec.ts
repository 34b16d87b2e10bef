// The console shell: served by the server, readable without JavaScript, interactive once hydrated,
// and closed to anyone signed out.
import { expect, test } from "@playwright/test";
import { signIn, USERS, waitInteractive, watchErrors } from "./helpers";

const PAGES = ["/", "/operations", "/operations/refund-1043-li_2", "/orders", "/orders/order:1043", "/approvals", "/reconcile", "/conflicts", "/audit", "/admin", "/admin/access", "/admin/providers", "/admin/policy", "/admin/webhooks", "/admin/notifications", "/account/notifications"];

test("the shell hydrates and speaks of the connection only when it is lost", async ({ page }) => {
  const problems = watchErrors(page);
  await signIn(page, USERS.manager);
  await expect(page).toHaveTitle("Overview · opledger");
  await waitInteractive(page);
  await expect(page.getByTestId("connection-lost")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /connection/i })).toHaveCount(0);

  await page.getByRole("link", { name: "Operations" }).click();
  await expect(page).toHaveURL(/\/operations$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Operations");
  await expect(page.getByRole("link", { name: "Operations" })).toHaveAttribute("aria-current", "page");
  expect(problems).toEqual([]);
});

test("every page hydrates under the Content-Security-Policy, with no violation", async ({ page }) => {
  const problems = watchErrors(page);
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await signIn(page, USERS.admin);
  for (const path of PAGES.concat(["/login"])) {
    const response = await page.goto(path);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy, path).toContain("script-src 'self' 'nonce-");
    expect(policy, path).not.toContain("unsafe-inline");
    await waitInteractive(page);
  }
  // Sign-in answers 429 when many tests sign the same person in within a minute (signIn waits).
  expect(problems.filter((problem) => !problem.includes("status of 429"))).toEqual([]);
});

test("times are written in UTC by the server, then as ages with the reader's time and zone on hover", async ({ browser }) => {
  const context = await browser.newContext({ timezoneId: "Asia/Taipei" });
  const page = await context.newPage();
  await signIn(page, USERS.auditor, "/operations");
  const time = page.locator("time").first();
  await expect(time).toHaveText(/^(just now|\d+ (min|h|d) ago|\d{4}-\d\d-\d\d)$/);
  const iso = await time.getAttribute("datetime");
  const local = new Date(iso!).toLocaleString("sv-SE", { timeZone: "Asia/Taipei" }).slice(0, 16);
  await expect(time).toHaveAttribute("title", new RegExp(`^${local}:\\d\\d \\(UTC\\+08:00, your time\\)$`));
  // One choice of zone holds for every time of every page.
  await page.getByTestId("zone-choice").selectOption("utc");
  await expect(page.getByTestId("zone-choice")).toHaveValue("utc");
  await expect(page.locator("time").first()).toHaveAttribute("title", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  await page.goto("/orders");
  await waitInteractive(page);
  await expect(page.locator("time").first()).toHaveAttribute("title", /UTC$/);
  await context.close();
});

test("a signed-out visitor is sent to sign in, and every page and server function refuses them", async ({ page, request }) => {
  for (const path of PAGES) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(303);
    expect(response.headers()["location"]).toBe(`/login?next=${encodeURIComponent(path)}`);
  }
  for (const fn of ["overview", "orders", "conflicts", "users", "approval_rules"]) {
    const response = await request.post(`/rpc/${fn}`, { form: {} });
    expect(response.status(), fn).toBe(401);
  }
  await page.goto("/orders");
  await expect(page).toHaveURL(/\/login\?next=%2Forders$/);
  await page.screenshot({ path: "screenshots/login.png", fullPage: true });
  await page.getByLabel("Name").fill(USERS.auditor);
  await page.getByLabel("Password").fill("wrong password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toHaveText(/do not match/);
  await expect(page.getByLabel("Name")).toHaveValue(USERS.auditor);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("signing in and every section work, and the islands stay asleep", async ({ page }) => {
    await signIn(page, USERS.admin);
    for (const [path, heading] of [
      ["/", "Overview"],
      ["/operations", "Operations"],
      ["/orders", "Orders"],
      ["/conflicts", "Conflicts"],
      ["/approvals", "Approvals"],
      ["/reconcile", "Reconcile"],
      ["/audit", "Audit"],
      ["/admin", "Admin"],
    ]) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    }
    await expect(page.getByTestId("connection")).toHaveAttribute("data-interactive", "false");
    await page.goto("/operations");
    await page.getByTestId("filter-state").locator("summary").click();
    await page.getByTestId("filter-state").getByLabel("succeeded", { exact: true }).check();
    await page.getByTestId("apply-filters").click();
    await expect(page).toHaveURL(/state=succeeded/);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login\?signed_out=1$/);
  });

  test("an unknown address shows the 404 page", async ({ page }) => {
    await signIn(page, USERS.admin);
    const response = await page.goto("/nowhere");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Page not found");
    await page.screenshot({ path: "screenshots/not-found.png", fullPage: true });
  });
});

test("the bundle's files have hashed names, come compressed, and a second visit downloads none again", async ({ page }) => {
  const assets = new Map<string, { encoding?: string; cache?: string }>();
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith("/pkg/")) {
      const headers = response.headers();
      assets.set(url.pathname, { encoding: headers["content-encoding"], cache: headers["cache-control"] });
    }
  });
  await signIn(page, USERS.support);
  await waitInteractive(page);
  const names = [...assets.keys()];
  for (const kind of ["js", "wasm", "css"]) {
    expect(names.some((name) => new RegExp(`^/pkg/opledger\\.[A-Za-z0-9_-]+\\.${kind}$`).test(name)), `${kind} in ${names}`).toBe(true);
  }
  for (const [name, { encoding, cache }] of assets) {
    expect(encoding, name).toBe("gzip");
    expect(cache, name).toBe("public, max-age=31536000, immutable");
  }

  const downloaded: string[] = [];
  const client = await page.context().newCDPSession(page);
  await client.send("Network.enable");
  const servedFromCache = new Set<string>();
  client.on("Network.requestServedFromCache", (event) => servedFromCache.add(event.requestId));
  client.on("Network.responseReceived", (event) => {
    const url = new URL(event.response.url);
    const cached = event.response.fromDiskCache || servedFromCache.has(event.requestId);
    if (url.pathname.startsWith("/pkg/") && !cached) {
      downloaded.push(`${url.pathname} (${event.response.status})`);
    }
  });
  await page.goto("/operations");
  await waitInteractive(page);
  expect(downloaded, "every file of the bundle came from the browser's cache").toEqual([]);
});
