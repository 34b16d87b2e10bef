import { chromium } from "@playwright/test";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless","--no-sandbox","--disable-gpu"] });
const page = await browser.newPage();
let errors = 0;
page.on("console", async m => { if (m.type()==="error") errors++; if (m.type()==="error" && m.args().length > 1) { console.log(await m.args()[1].evaluate(n => (n.outerHTML || (n.nodeName + ':' + n.textContent)).slice(0, 300))); } });
await page.goto("http://127.0.0.1:3200/login");
await page.waitForTimeout(2500);
console.log("errors", errors);
await browser.close();
