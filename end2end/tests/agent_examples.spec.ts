// The Python agent examples (clients/python/examples: the OpenAI Agents SDK and Pydantic AI) run
// against the console's server with a token an admin made in the console: each asks to refund a
// line item over the demo's approval threshold (refunds at stripe from TWD 1,000.00), prints the
// console link and waits in the ledger; the manager opens the link and approves (the server sends
// the refund), and the example resumes its run and ends with the refund succeeded, sent once; or
// she denies it, and the example's framework turns the call down, with nothing sent.
//
// The examples run in the clients' virtual environment (`pip install ./clients/python
// -r clients/python/requirements-test.txt -r clients/python/examples/requirements.txt`, made by
// the test script at ../target/agent-clients; OPLEDGER_AGENT_PYTHON names another interpreter).
import { expect, test, type APIRequestContext, type Browser } from "@playwright/test";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import * as path from "node:path";
import { signIn, USERS, waitForDemo, waitInteractive, watchErrors } from "./helpers";

const PYTHON = path.resolve(process.env.OPLEDGER_AGENT_PYTHON ?? "../target/agent-clients/bin/python");
const EXAMPLES = path.resolve("../clients/python/examples");

/** One run of an example: its JSON lines as they come, and its exit. */
class ExampleRun {
  readonly lines: Record<string, unknown>[] = [];
  output = "";
  closed = false;
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(file: string, args: string[], env: Record<string, string>) {
    const inherited = { ...process.env };
    // The server sends a refund approved in the console; the example never needs an account here.
    delete inherited.OPLEDGER_STRIPE_URL;
    delete inherited.OPLEDGER_STRIPE_KEY;
    this.child = spawn(PYTHON, [path.join(EXAMPLES, file), ...args], { env: { ...inherited, ...env } });
    let pending = "";
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.output += chunk;
      pending += chunk;
      const complete = pending.split("\n");
      pending = complete.pop() ?? "";
      for (const line of complete) {
        try {
          this.lines.push(JSON.parse(line));
        } catch {
          // not one of the example's JSON lines
        }
      }
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.output += chunk));
    this.child.on("error", (error) => {
      this.output += `${PYTHON}: ${error.message}\n`;
      this.closed = true;
    });
    // "close": the process ended and its output is all read.
    this.exited = new Promise((resolve) =>
      this.child.on("close", (code) => {
        this.closed = true;
        resolve(code);
      }),
    );
  }

  /** The first JSON line that has `key`, once printed. */
  async line(key: string, timeout: number): Promise<Record<string, unknown>> {
    const until = Date.now() + timeout;
    for (;;) {
      const found = this.lines.find((line) => key in line);
      if (found) return found;
      if (this.closed || Date.now() > until) throw new Error(`no "${key}" line from the example; it said:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Its exit code, waiting at most `timeout` ms. */
  async exit(timeout: number): Promise<number | null> {
    const late = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), timeout).unref());
    const code = await Promise.race([this.exited, late]);
    expect(code, `the example's exit; it said:\n${this.output}`).not.toBe("late");
    return code as number | null;
  }

  stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
  }
}

let token = "";

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await browser.newPage();
  await signIn(admin, USERS.admin, "/admin/access");
  await waitForDemo(admin); // the approval rule is seeded with the demo
  await admin.goto("/admin/access");
  await waitInteractive(admin);
  const form = admin.getByTestId("create-token");
  await form.getByLabel("Name").fill(`e2e-agent-examples-${Date.now()}`);
  await form.getByLabel("Agent tools").uncheck();
  await form.getByLabel("Ledger read").check();
  await form.getByLabel("Ledger write").check();
  await form.getByRole("button", { name: "Create token" }).click();
  await expect(admin.getByTestId("tokens-result")).toContainText("shown only this once");
  token = (await admin.getByTestId("tokens-result").textContent())?.match(/opl_[0-9a-f]+_[0-9a-f]+/)?.[0] ?? "";
  expect(token, "the token's secret").toBeTruthy();
  await admin.context().close();
});

/** The operation as the API shows it to the example's token. */
async function operation(request: APIRequestContext, opId: string) {
  const answer = await request.get(`/api/v1/operations/${opId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status(), await answer.text()).toBe(200);
  return answer.json();
}

/** Runs `file` for a line item of TWD 1,200.00 paid by `paymentIntent` until it waits for a
 * manager, then lets maria.manager `decide` on the operation's page. */
async function runAndDecide(
  browser: Browser,
  baseURL: string,
  file: string,
  order: string,
  paymentIntent: string,
  decide: "approve" | "deny",
  screenshot: string,
) {
  const run = new ExampleRun(file, [order, "li_1", "120000", "TWD", paymentIntent], {
    OPLEDGER_URL: baseURL,
    OPLEDGER_TOKEN: token,
    OPLEDGER_APPROVAL_TIMEOUT_S: "90",
  });
  const manager = await browser.newPage({ locale: "en-US" });
  const problems = watchErrors(manager);
  try {
    const opId = `refund-${order}-li_1`;
    const waiting = await run.line("waiting_for_approval", 60_000);
    expect(waiting).toEqual({ waiting_for_approval: `${baseURL}/operations/${opId}`, op_id: opId });
    expect((await operation(manager.request, opId)).state).toBe("pending_approval");

    // The manager follows the link the example printed.
    await signIn(manager, USERS.manager, "/");
    await manager.goto(waiting.waiting_for_approval as string);
    await expect(manager.getByTestId("op-id")).toHaveText(opId);
    await expect(manager.locator(".page-head .badge").first()).toHaveText("pending approval");
    await waitInteractive(manager);
    await manager.screenshot({ path: `screenshots/${screenshot}`, fullPage: true });
    if (decide === "approve") {
      await manager.locator('form[data-action="approve"]').getByRole("button", { name: "Approve" }).click();
      await expect(manager.locator(".page-head .badge").first()).not.toHaveText("pending approval");
    } else {
      const deny = manager.locator('form[data-action="deny"]');
      await deny.getByLabel("Reason").fill("the customer kept the headphones");
      await deny.getByRole("button", { name: "Deny" }).click();
      await expect(manager.locator(".page-head .badge").first()).toHaveText("denied");
    }

    expect(await run.exit(60_000), run.output).toBe(0);
    const last = await run.line("result", 1_000);
    expect(problems).toEqual([]);
    return { opId, last };
  } finally {
    run.stop();
    await manager.context().close();
  }
}

test("the OpenAI Agents SDK example waits for the manager's approval in the console and ends with the refund sent once", async ({ browser, baseURL, request }) => {
  test.setTimeout(180_000);
  const order = `e2e-oa-${Date.now()}`;
  // pi_1043 has TWD 1,200.00 left to refund after the demo's refunds of order 1043.
  const { opId, last } = await runAndDecide(browser, baseURL!, "openai_agents_refund.py", order, "pi_1043", "approve", "agent-example-openai-approve.png");
  expect(last).toMatchObject({ state: "succeeded", op_id: opId });
  expect(String(last.result)).toContain(`${opId} succeeded`);

  const view = await operation(request, opId);
  expect(view.state).toBe("succeeded");
  expect(view.attempts).toHaveLength(1);
  expect(view.external_refs).toHaveLength(1);
  expect(view.approval?.approver).toBe(USERS.manager);
});

test("the Pydantic AI example waits for the manager's approval in the console and ends with the refund sent once", async ({ browser, baseURL, request }) => {
  test.setTimeout(180_000);
  const order = `e2e-pa-${Date.now()}`;
  // pi_1051 (TWD 2,490.00, nothing refunded): pi_1043 has no TWD 1,200.00 left after the test above.
  const { opId, last } = await runAndDecide(browser, baseURL!, "pydantic_ai_refund.py", order, "pi_1051", "approve", "agent-example-pydantic-ai-approve.png");
  expect(last).toMatchObject({ state: "succeeded", op_id: opId });
  expect(String(last.result)).toContain(`${opId} succeeded`);

  const view = await operation(request, opId);
  expect(view.state).toBe("succeeded");
  expect(view.attempts).toHaveLength(1);
  expect(view.external_refs).toHaveLength(1);
  expect(view.approval?.approver).toBe(USERS.manager);
});

test("the Pydantic AI example hears the manager's denial, turns the tool call down, and nothing is sent", async ({ browser, baseURL, request }) => {
  test.setTimeout(180_000);
  const order = `e2e-pa-deny-${Date.now()}`;
  const { opId, last } = await runAndDecide(browser, baseURL!, "pydantic_ai_refund.py", order, "pi_1043", "deny", "agent-example-pydantic-ai-deny.png");
  expect(last).toMatchObject({ state: "denied", op_id: opId });
  // The framework's denial (ToolDenied) carries the ledger's words back to the model.
  expect(String(last.result)).toContain(`${opId} was denied`);

  const view = await operation(request, opId);
  expect(view.state).toBe("denied");
  expect(view.attempts).toHaveLength(0);
  expect(view.external_refs).toHaveLength(0);
});
