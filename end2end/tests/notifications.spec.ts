// Notifications, as an admin sets them up: the page explains its channels, destinations, rules and
// delivery log; a shared destination and a rule added through its forms show in words, and a bad
// wait is refused beside its field. The admin page and a person's own page are photographed in
// English and Traditional Chinese at 1440 and 390 px into screenshots/.
import { expect, test } from "@playwright/test";
import { adminWindows, waitInteractive, watchErrors } from "./helpers";

test.describe.configure({ mode: "serial" });

const adminAt = adminWindows();

test("an admin adds a destination and a rule, sees them in words, and a bad wait is refused beside its field", async ({ browser }) => {
  test.setTimeout(90_000);
  const page = await adminAt(browser);
  const problems = watchErrors(page);
  await page.goto("/admin/notifications");
  await waitInteractive(page);
  await expect(page.getByRole("heading", { name: "Channels" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Shared destinations" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Rules", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Delivery log" })).toBeVisible();
  await expect(page.getByTestId("notify-intro")).toContainText("A rule says which event");

  const destinations = page.getByTestId("notify-destination-form");
  await destinations.getByLabel("Name").fill("e2e-team-mail");
  await destinations.getByLabel("Channel").selectOption("email");
  await destinations.getByLabel("Webhook URL, LINE id or address").fill("team@shop.example");
  await destinations.getByRole("button", { name: "Add destination" }).click();
  const added = page.locator('[data-testid="notify-destination"][data-name="e2e-team-mail"]');
  await expect(added).toBeVisible();
  await expect(added).toContainText("team@shop.example");
  await expect(page.getByTestId("notify-destinations-result")).toContainText("Added the destination e2e-team-mail");
  await waitInteractive(page);

  const rules = page.getByTestId("notify-rule-form");
  await rules.getByLabel("Event").selectOption("needs_review");
  await rules.getByRole("combobox", { name: /^Who/ }).selectOption("role:support");
  await rules.getByLabel("Channel").selectOption("email");
  await rules.getByLabel("First message").fill("10m");
  await rules.getByLabel("Remind every").fill("0");
  await rules.getByRole("button", { name: "Add rule" }).click();
  const refusal = rules.locator('[data-error-for="remind_every"]');
  await expect(refusal).toContainText("Remind every");
  await expect(rules.getByLabel("Remind every")).toHaveAttribute("aria-invalid", "true");
  await expect(rules.getByLabel("Remind every")).toBeFocused();

  await rules.getByLabel("Remind every").fill("30m");
  await rules.getByLabel("Escalate after").fill("2h");
  await rules.getByLabel("Escalate to").selectOption("destination:e2e-team-mail");
  await rules.getByRole("button", { name: "Add rule" }).click();
  const rule = page.locator('[data-testid="notify-rule"][data-event="needs_review"]').filter({ hasText: "the destination e2e-team-mail" });
  await expect(rule).toBeVisible();
  await expect(rule).toContainText("everyone who is support");
  await expect(rule).toContainText("10m after the event");
  await expect(rule).toContainText("every 30m, at most 3 times");
  await expect(page.getByTestId("notify-rules-result")).toContainText("Added the rule");
  expect(problems.filter((problem) => !/Failed to load resource: the server responded with a status of 422/.test(problem)), "the refused rule is a 422, nothing else").toEqual([]);
});

for (const [locale, lang] of [["en-US", "en"], ["zh-TW", "zh-TW"]] as const) {
  for (const width of [1440, 390]) {
    test(`the notifications pages in ${lang} at ${width} px: no sideways scroll, photographed`, async ({ browser }) => {
      const page = await adminAt(browser, width, locale);
      const problems = watchErrors(page);
      for (const [path, shot] of [["/admin/notifications", "admin-notifications"], ["/account/notifications", "account-notifications"]]) {
        await page.goto(path);
        await waitInteractive(page);
        await expect(page.locator("html")).toHaveAttribute("lang", lang);
        if (lang === "zh-TW") await expect(page.getByRole("heading", { level: 1 })).toContainText(path.startsWith("/admin") ? "管理" : "你的通知");
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${path} at ${width} px scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `screenshots/${shot}-${lang}-${width}.png`, fullPage: true });
      }
      expect(problems).toEqual([]);
    });
  }
}
