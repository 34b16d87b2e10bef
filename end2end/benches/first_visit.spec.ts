// The console's first visit on a phone over slow 4G, as Chromium's DevTools emulate it (150 ms
// round trips, 1.6 Mbit/s down, 750 kbit/s up, the processor slowed four times): for each page,
// in a browser with nothing cached, the time from asking for the page until it is interactive
// (its last island, the footer's connection check, is hydrated and enabled), and the bytes that
// crossed the network, the wasm apart. Prints a Markdown table: median of five visits each.
import { expect, test } from "@playwright/test";
import { signIn, USERS, waitForDemo } from "../tests/helpers";

const VISITS = 5;
const SLOW_4G = { offline: false, latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 };
const PAGES = ["/", "/operations", "/operations/refund-1043-li_2", "/orders/order:2002", "/reconcile"];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

test("first visit on an emulated slow 4G phone", async ({ browser }) => {
  const setup = await browser.newContext();
  const page = await setup.newPage();
  await signIn(page, USERS.support);
  await waitForDemo(page);
  const signedIn = await setup.storageState();
  await setup.close();

  const rows = ["| page | interactive (median of 5) | slowest | bytes transferred | of which wasm |", "|---|---|---|---|---|"];
  for (const path of PAGES) {
    const times: number[] = [];
    const totals: number[] = [];
    const wasm: number[] = [];
    for (let visit = 0; visit < VISITS; visit++) {
      const context = await browser.newContext({ storageState: signedIn, viewport: { width: 390, height: 844 } });
      const phone = await context.newPage();
      const cdp = await context.newCDPSession(phone);
      await cdp.send("Network.enable");
      await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
      await cdp.send("Network.emulateNetworkConditions", SLOW_4G);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
      const urls = new Map<string, string>();
      let total = 0;
      let wasmBytes = 0;
      cdp.on("Network.responseReceived", (event) => urls.set(event.requestId, event.response.url));
      cdp.on("Network.loadingFinished", (event) => {
        total += event.encodedDataLength;
        if ((urls.get(event.requestId) ?? "").endsWith(".wasm")) wasmBytes += event.encodedDataLength;
      });
      const started = Date.now();
      await phone.goto(path, { waitUntil: "commit" });
      await expect(phone.getByTestId("connection")).toHaveAttribute("data-interactive", "true", { timeout: 60_000 });
      times.push(Date.now() - started);
      await phone.waitForLoadState("networkidle");
      totals.push(total);
      wasm.push(wasmBytes);
      await context.close();
    }
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    rows.push(`| \`${path}\` | ${median(times)} ms | ${Math.max(...times)} ms | ${kb(median(totals))} | ${kb(median(wasm))} |`);
  }
  console.log(rows.join("\n"));
});
