// The portal in a real browser (issue 27), driven by playwright-core over
// the system's Chromium, against a real `relay serve` and relay-receiver
// that crates/relay/tests/portal_browser.rs started.
//
// Usage: node e2e.mjs '<config json>'
//   config: { relay, key, tenant, consumer_a, endpoint_b, receiver_url, shots }
// Talks back to the Rust test on stdout/stdin: a line `CONTROL <json>` asks
// it to act (set the receiver's behaviour, expire a token) and waits for
// one line back. Prints `STEP <name>` as it goes and `E2E OK` at the end;
// exits non-zero on the first failure.

import http from "node:http";
import readline from "node:readline";
import { chromium } from "playwright-core";

const cfg = JSON.parse(process.argv[2]);
const rl = readline.createInterface({ input: process.stdin });
const replies = rl[Symbol.asyncIterator]();

async function control(cmd) {
  process.stdout.write(`CONTROL ${JSON.stringify(cmd)}\n`);
  const { value } = await replies.next();
  if (value !== "done") throw new Error(`control ${JSON.stringify(cmd)}: ${value}`);
}

function step(name) {
  process.stdout.write(`STEP ${name}\n`);
}

function check(cond, what) {
  if (!cond) throw new Error(`check failed: ${what}`);
}

async function api(method, path, token, body) {
  const res = await fetch(cfg.relay + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function mint(body) {
  const r = await api("POST", "/v1/portal-tokens", cfg.key, body);
  check(r.status === 201, `mint: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}

/** A host page server: `pages[path](query)` returns its HTML. */
function host(pages) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      const url = new URL(req.url, "http://x");
      const page = pages[url.pathname];
      if (!page) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(page(url.searchParams));
    });
    server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}` }));
  });
}

const framePage = (q) =>
  `<!doctype html><title>Host</title><h1>Our app</h1><iframe title="Webhooks portal" style="width:900px;height:560px;border:1px solid #ccc" src="${q.get("src")}"></iframe>`;
const componentPage = (q) =>
  `<!doctype html><title>Host</title><style>relay-portal{--relay-primary:#8a1c7c;--relay-on-primary:#ffffff}</style><h1>Our app</h1>
<relay-portal api-base="${cfg.relay}"></relay-portal>
<script type="module">
import "${cfg.relay}/portal/assets/relay-portal.js";
document.querySelector("relay-portal").token = ${JSON.stringify(q.get("token"))};
</script>`;

/** Clicks Refresh until the message table has `n` rows (completions are
 * written a moment after an attempt's answer). */
async function rows(page, n) {
  for (let i = 0; i < 50; i++) {
    if ((await page.locator("tr[data-message]").count()) >= n) return;
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.waitForTimeout(100);
  }
  throw new Error(`fewer than ${n} messages listed`);
}

const ALL = ["manage_endpoints", "rotate_keys", "recover", "send_tests"];
const allowed = await host({ "/frame": framePage, "/component": componentPage });
const denied = await host({ "/frame": framePage, "/component": componentPage });

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let failed = false;
let current = null;
// Uncaught errors of the page, shown with a failure.
const errors = [];
try {
  const context = await browser.newContext({ viewport: { width: 960, height: 640 } });
  context.setDefaultTimeout(15000);
  const page = await context.newPage();
  current = page;
  page.on("pageerror", (e) => errors.push(e.message));
  const shot = (name, p = page) => p.screenshot({ path: `${cfg.shots}/${name}.png` });
  const status = () => page.locator(".status").first();

  step("brand");
  let r = await api("PUT", "/v1/portal-brand", cfg.key, {
    name: "Acme",
    primary_color: "#0b57d0",
    theme: "light",
    embed_origins: [allowed.origin],
  });
  check(r.status === 200, `brand: ${r.status}`);

  step("mint a token and open the page");
  const a = await mint({ consumer_id: cfg.consumer_a, capabilities: ALL, allowed_origins: [allowed.origin], lifetime_seconds: 900 });
  await page.goto(`${cfg.relay}${a.url}`);
  await page.getByRole("heading", { name: "Acme webhooks" }).waitFor();
  check(!page.url().includes("token"), `the token left the address bar: ${page.url()}`);
  check(!page.url().includes(a.token), "the token is not in the URL");

  step("add an endpoint");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByLabel("Endpoint URL").fill(cfg.receiver_url);
  await page.getByLabel("Description").fill("Orders, from the portal");
  await page.getByRole("checkbox", { name: "order.created" }).check();
  await shot("portal-add-endpoint");
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByRole("heading", { name: cfg.receiver_url }).waitFor();
  await page.getByText("Endpoint added.").waitFor();

  step("send a test event and see it in the log with its attempt");
  await page.getByRole("tab", { name: "Testing" }).click();
  await page.getByLabel("Event type").selectOption("order.created");
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText("Test event sent: delivered (HTTP 200)").waitFor();
  await page.getByRole("tab", { name: "Delivery log" }).click();
  await page.getByRole("button", { name: "Refresh" }).waitFor();
  await rows(page, 1);
  check((await page.locator("tr[data-message]").count()) === 1, "one message in the log");
  await page.locator("tr[data-message]").first().getByRole("button").click();
  await page.locator("tr[data-attempt]").first().waitFor();
  const attempt = await page.locator("tr[data-attempt]").first().innerText();
  check(attempt.includes("delivered") && attempt.includes("HTTP 200"), `attempt row: ${attempt}`);
  // The payload is text: the sample's markup is shown, never rendered.
  const payload = await page.getByLabel("Payload").innerText();
  check(payload.includes("<b>not html</b>"), `payload shown as text: ${payload}`);
  check((await page.locator("relay-portal b").count()) === 0, "no element made from the payload");
  // The versions that shaped it, beside it.
  const versions = await page.locator("[data-versions]").innerText();
  check(versions === "Shaped by endpoint version 1 and order.created version 1.", `versions: ${versions}`);
  await shot("portal-delivery-log");

  step("filter the log");
  await page.getByLabel("State").selectOption("failed_permanent");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("No messages.").waitFor();

  step("fail a delivery and resend it");
  await control({ receiver: "status", status: 400 });
  await page.getByRole("tab", { name: "Testing" }).click();
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText("Test event sent: permanent (HTTP 400)").waitFor();
  await page.getByRole("tab", { name: "Delivery log" }).click();
  await page.getByRole("button", { name: "Refresh" }).waitFor();
  await rows(page, 2);
  await page.locator("tr[data-message]").nth(1).getByRole("button").click();
  await page.locator("tr[data-attempt]").first().waitFor();
  const failedAttempt = await page.locator("tr[data-attempt]").first().innerText();
  check(failedAttempt.includes("HTTP 400"), `the failed attempt: ${failedAttempt}`);
  await control({ receiver: "ok" });
  await page.getByRole("button", { name: "Resend" }).click();
  await page.getByText(/Resent: attempt \d+, 200; the message is delivered/).waitFor();
  await page.locator("tr[data-attempt]").nth(1).waitFor();
  await shot("portal-resend");
  await page.getByRole("tab", { name: "Failed deliveries" }).click();
  await page.getByRole("button", { name: "Refresh" }).waitFor();

  step("rotate the key and see both keys");
  await page.getByRole("tab", { name: "Signing keys" }).click();
  await page.locator("tr[data-key-id]").first().waitFor();
  check((await page.locator("tr[data-key-id]").count()) === 1, "one key before the rotation");
  await page.getByRole("button", { name: "Rotate key" }).click();
  await page.getByText("Key rotated").waitFor();
  await page.locator("tr[data-key-id]").nth(1).waitFor();
  const keys = await page.locator("code.public-key").allInnerTexts();
  check(keys.length === 2 && keys.every((k) => k.startsWith("whpk_")), `two public keys: ${keys}`);
  for (const lang of ["Rust", "Python", "TypeScript"]) {
    await page.getByRole("tab", { name: lang }).click();
    const code = await page.getByLabel("Verification example").innerText();
    check(keys.every((k) => code.includes(k)), `${lang} example carries both keys`);
  }
  await page.getByRole("tab", { name: "Rust" }).click();
  await shot("portal-keys");

  step("keyboard: tabs move with the arrow keys");
  await page.getByRole("tab", { name: "Signing keys" }).focus();
  await page.keyboard.press("ArrowRight");
  check(
    (await page.getByRole("tab", { name: "Testing" }).getAttribute("aria-selected")) === "true",
    "ArrowRight selects the next tab",
  );

  step("A's token sees nothing of B");
  const seen = await page.evaluate(
    async ([relay, token, b]) => {
      const h = { Authorization: `Bearer ${token}` };
      const list = await (await fetch(`${relay}/v1/portal/endpoints`, { headers: h })).json();
      const one = await fetch(`${relay}/v1/portal/endpoints/${b}`, { headers: h });
      return { ids: list.data.map((e) => e.id), status: one.status };
    },
    [cfg.relay, a.token, cfg.endpoint_b],
  );
  check(seen.status === 404 && !seen.ids.includes(cfg.endpoint_b) && seen.ids.length === 1, `scope: ${JSON.stringify(seen)}`);
  await page.getByRole("button", { name: "← All endpoints" }).click();
  check(!(await page.locator("relay-portal").innerText()).includes(cfg.endpoint_b), "B's endpoint is not shown");

  step("change the theme");
  r = await api("PUT", "/v1/portal-brand", cfg.key, {
    name: "Acme",
    primary_color: "#ffb300",
    theme: "dark",
    embed_origins: [allowed.origin],
  });
  check(r.status === 200, "brand put");
  // A fresh load (a goto that changes only the fragment would not reload).
  await page.goto("about:blank");
  await page.goto(`${cfg.relay}${a.url}`);
  await page.getByRole("heading", { name: "Acme webhooks" }).waitFor();
  const bg = await page.locator("relay-portal").evaluate((el) => getComputedStyle(el.shadowRoot.querySelector(".root")).backgroundColor);
  check(bg === "rgb(20, 22, 26)", `dark background: ${bg}`);
  const primary = await page.getByRole("button", { name: "Open" }).first().evaluate((el) => getComputedStyle(el).color);
  await page.getByRole("button", { name: "Add endpoint" }).evaluate((el) => el.focus());
  await shot("portal-dark");
  const button = await page.getByRole("button", { name: "Add endpoint" }).evaluate((el) => getComputedStyle(el).backgroundColor);
  check(button === "rgb(255, 179, 0)", `the brand's primary colour: ${button} (${primary})`);

  step("an expired token is refused");
  const e = await mint({ consumer_id: cfg.consumer_a, lifetime_seconds: 60 });
  await control({ expire: e.id });
  await page.goto("about:blank");
  await page.goto(`${cfg.relay}${e.url}`);
  await page.getByText(/expired/).waitFor();
  check((await page.getByRole("heading", { name: "Acme webhooks" }).count()) === 0, "nothing shown with an expired token");

  step("framed by an allowed origin");
  const frameSrc = `${cfg.relay}${a.embed_url}`;
  await page.goto(`${allowed.origin}/frame?src=${encodeURIComponent(frameSrc)}`);
  const frame = page.frameLocator("iframe");
  await frame.getByRole("heading", { name: "Acme webhooks" }).waitFor();
  await shot("portal-embedded");

  step("framing by a disallowed origin is refused");
  const blocked = await context.newPage();
  const cspErrors = [];
  blocked.on("console", (m) => {
    if (/frame-ancestors|Refused to frame/i.test(m.text())) cspErrors.push(m.text());
  });
  await blocked.goto(`${denied.origin}/frame?src=${encodeURIComponent(frameSrc)}`);
  await blocked.waitForLoadState("load");
  const child = blocked.frames().find((f) => f !== blocked.mainFrame());
  const framedText = child ? await child.evaluate(() => document.body ? document.body.innerText : "").catch(() => "") : "";
  check(!framedText.includes("Acme webhooks"), `the portal rendered inside a disallowed origin: ${framedText}`);
  // The tab page (/portal) refuses every frame, the allowed origin's too.
  await blocked.goto(`${allowed.origin}/frame?src=${encodeURIComponent(cfg.relay + a.url)}`);
  await blocked.waitForLoadState("load");
  const child2 = blocked.frames().find((f) => f !== blocked.mainFrame());
  const text2 = child2 ? await child2.evaluate(() => document.body ? document.body.innerText : "").catch(() => "") : "";
  check(!text2.includes("Acme webhooks"), "/portal refuses to be framed");
  check(cspErrors.length >= 1, `the browser reported the refusal: ${cspErrors}`);

  step("the component in the tenant's own page, and refused from another origin");
  await page.goto(`${allowed.origin}/component?token=${encodeURIComponent(a.token)}`);
  await page.getByRole("heading", { name: "Acme webhooks" }).waitFor();
  await page.locator("tr[data-endpoint]").first().waitFor();
  const hostPrimary = await page.getByRole("button", { name: "Add endpoint" }).evaluate((el) => getComputedStyle(el).backgroundColor);
  check(hostPrimary === "rgb(138, 28, 124)", `the host page's override wins: ${hostPrimary}`);
  await shot("portal-component");
  await page.goto(`${denied.origin}/component?token=${encodeURIComponent(a.token)}`);
  await page.getByText(/origin_not_allowed/).waitFor();

  check(errors.length === 0, `page errors: ${errors}`);
  process.stdout.write("E2E OK\n");
} catch (err) {
  failed = true;
  process.stdout.write(`E2E FAILED: ${err && err.stack ? err.stack : err}\n`);
  if (current) {
    // What the page said last (its status line) and what it threw.
    const status = await current.locator('[role="status"]').allTextContents().catch(() => []);
    process.stdout.write(`status line: ${JSON.stringify(status)}; page errors: ${JSON.stringify(errors)}\n`);
    await current.screenshot({ path: `${cfg.shots}/failure.png` }).catch(() => {});
  }
} finally {
  await browser.close();
  allowed.server.close();
  denied.server.close();
  rl.close();
}
process.exit(failed ? 1 : 0);
