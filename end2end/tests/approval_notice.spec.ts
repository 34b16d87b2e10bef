// An agent's refund over the approval threshold reaches the manager by e-mail, in her language
// (zh-TW), through a real SMTP server (.e2e-mail/, see playwright.config.ts); the message's link
// opens the operation's page, where she approves it; the agent, which waits on the operation with
// ?wait=, hears her approval at once.
import { expect, test } from "@playwright/test";
import * as fs from "node:fs";
import * as path from "node:path";
import { signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

const MAILBOX = ".e2e-mail";

/** A header's RFC 2047 encoded words, decoded. */
function decodeWords(header: string): string {
  return header
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toLowerCase() === "b"
        ? Buffer.from(text, "base64").toString("utf8")
        : Buffer.from(text.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (_m, hex) => String.fromCharCode(parseInt(hex, 16))), "latin1").toString("utf8"),
    );
}

/** A MIME body decoded by its Content-Transfer-Encoding. */
function decodeBody(encoding: string, body: string): string {
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (/quoted-printable/i.test(encoding)) {
    const bytes = body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, hex) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

type Message = { to: string; subject: string; contentType: string; text: string; html: string };

/** One raw message: its subject and its text and HTML parts, decoded. */
function parse(raw: string, to: string): Message {
  const [head, ...rest] = raw.replace(/\r\n/g, "\n").split("\n\n");
  const unfolded = head.replace(/\n[ \t]+/g, " ");
  const header = (name: string) => unfolded.match(new RegExp(`^${name}:\\s*(.*)$`, "im"))?.[1] ?? "";
  const body = rest.join("\n\n");
  const boundary = header("Content-Type").match(/boundary="?([^";]+)"?/)?.[1];
  const message: Message = { to, subject: decodeWords(header("Subject")), contentType: header("Content-Type"), text: "", html: "" };
  for (const part of boundary ? body.split(`--${boundary}`) : [raw]) {
    const [partHead, ...partBody] = part.replace(/^\n/, "").split("\n\n");
    const partHeaders = partHead.replace(/\n[ \t]+/g, " ");
    const encoding = partHeaders.match(/^Content-Transfer-Encoding:\s*(.*)$/im)?.[1] ?? "";
    const decoded = decodeBody(encoding, partBody.join("\n\n"));
    if (/^Content-Type:\s*text\/plain/im.test(partHeaders)) message.text = decoded;
    if (/^Content-Type:\s*text\/html/im.test(partHeaders)) message.html = decoded;
  }
  return message;
}

/** The messages the mailbox holds for `address`. */
function mailFor(address: string): Message[] {
  if (!fs.existsSync(MAILBOX)) return [];
  return fs
    .readdirSync(MAILBOX)
    .filter((name) => name.endsWith(".rcpt"))
    .filter((name) => fs.readFileSync(path.join(MAILBOX, name), "utf8").split(",").includes(address))
    .map((name) => parse(fs.readFileSync(path.join(MAILBOX, name.replace(/\.rcpt$/, ".eml")), "utf8"), address));
}

test("the manager hears of an agent's refund by e-mail in zh-TW, approves it from the link, and the waiting agent hears her approval at once", async ({ browser, request }) => {
  test.setTimeout(120_000);
  const admin = await browser.newPage();
  await signIn(admin, USERS.admin, "/admin/access");
  await waitForDemo(admin);
  await admin.goto("/admin/access");
  await waitInteractive(admin);
  const form = admin.getByTestId("create-token");
  const agentName = `e2e-refund-agent-${Date.now()}`;
  await form.getByLabel("Name").fill(agentName);
  await form.getByLabel("Ledger read").check();
  await form.getByLabel("Ledger write").check();
  await form.getByRole("button", { name: "Create token" }).click();
  await expect(admin.getByTestId("tokens-result")).toContainText("shown only this once");
  const secret = (await admin.getByTestId("tokens-result").textContent())?.match(/opl_[0-9a-f]+_[0-9a-f]+/)?.[0];
  expect(secret, "the token's secret").toBeTruthy();
  await admin.context().close();
  const agent = { authorization: `Bearer ${secret}` };

  // Maria reads zh-TW.
  const manager = await browser.newPage({ locale: "en-US" });
  const problems = watchErrors(manager);
  await signIn(manager, USERS.manager, "/");
  // The language form posts and comes back to "/": the page it comes back to is waited for until it
  // is interactive, so that no navigation of the switch is still under way when the test moves on.
  await waitInteractive(manager);
  await manager.getByTestId("language-menu").locator("summary").click();
  await manager.getByTestId("language-zh-TW").click();
  await expect(manager.locator("html")).toHaveAttribute("lang", "zh-TW");
  await waitInteractive(manager);

  try {
    const opId = `refund-e2e-${Date.now()}`;
    const registered = await request.post("/api/v1/operations", {
      headers: agent,
      data: {
        op_id: opId,
        kind: "refund",
        subject: "order:1043",
        provider: "stripe",
        params: { payment_intent: "pi_1043", amount: { minor: 180000, currency: "TWD" }, reason: "requested_by_customer", line_item: "li_2" },
        requested_by: "refund-agent",
      },
    });
    expect(registered.status(), await registered.text()).toBe(201);
    expect((await registered.json()).state).toBe("pending_approval");

    // The agent waits for the decision, without polling.
    const waited = request.get(`/api/v1/operations/${opId}?wait=60&state=pending_approval`, { headers: agent, timeout: 70_000 });

    let mail: Message | undefined;
    await expect(async () => {
      mail = mailFor("maria@shop.example").find((message) => message.text.includes(opId));
      expect(mail, "maria's message about the refund").toBeTruthy();
    }).toPass({ timeout: 30_000 });
    expect(mail!.subject).toMatch(/[核准退款]/);
    expect(mail!.text).toContain("NT$1,800");
    expect(mail!.text, "who asked: the agent's token").toContain(agentName);
    expect(mail!.contentType).toMatch(/multipart\/alternative/i);
    expect(mail!.html).toContain(opId);
    const link = mail!.text.match(/https?:\/\/\S+\/operations\/\S+/)?.[0]?.replace(/[).,]+$/, "");
    expect(link, "the message links to the operation's page").toBe(`http://127.0.0.1:${new URL(manager.url()).port}/operations/${opId}`);

    await manager.goto(link!);
    await expect(manager.getByTestId("op-id")).toHaveText(opId);
    await waitInteractive(manager);
    await manager.screenshot({ path: "screenshots/approval-from-notice-zh-TW.png", fullPage: true });
    const clicked = Date.now();
    await manager.getByRole("button", { name: "核准", exact: true }).first().click();
    await expect(manager.locator(".page-head .badge").first()).not.toHaveText("待核准");

    // The agent hears the decision at once: its wait ends with the approval (the console sends an
    // approved refund straight away, so the state may already be past "approved").
    const answer = await waited;
    expect(answer.status()).toBe(200);
    const decided = await answer.json();
    expect(Date.now() - clicked, "heard within seconds of the approval").toBeLessThan(5_000);
    expect(decided.state).not.toBe("pending_approval");
    expect(decided.approval?.approver).toBe(USERS.manager);
    expect(problems).toEqual([]);
  } finally {
    await manager.getByTestId("language-menu").locator("summary").click();
    await manager.getByTestId("language-browser").click();
    await expect(manager.locator("html")).toHaveAttribute("lang", "en");
    await manager.context().close();
  }
});
