// The README's Express example (examples/express.ts, shown verbatim in
// README.md) verifies real signed requests over the raw body.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

import { PACKAGE_ROOT, RELAY_VECTORS, Signer, load } from "./helpers";

const signer = new Signer(load(RELAY_VECTORS));
const BODY = Buffer.from(JSON.stringify({ specversion: "1.0", id: "evt_1", type: "order.paid" }));

test("the express example verifies, rejects and deduplicates", async (t) => {
  process.env.RELAY_WEBHOOK_KEYS = `${signer.publicKey} ${signer.otherPublicKey}`;
  const { app } = await import("../examples/express");
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/relay`;
  const post = async (body: Buffer, headers: Record<string, string>, type = "application/cloudevents+json") => {
    const r = await fetch(url, { method: "POST", body, headers: { ...headers, "content-type": type } });
    return [r.status, await r.text()];
  };
  const log = t.mock.method(console, "log", () => {});

  const good = signer.headers("evt_1", BODY);
  assert.deepEqual(await post(Buffer.from(BODY.toString().replace("evt_1", "evt_2")), good), [401, "no_matching_signature"]);
  const { "webhook-signature": _s, ...unsigned } = good;
  assert.deepEqual(await post(BODY, unsigned), [401, "missing_header"]);
  assert.deepEqual((await post(BODY, good))[0], 204);
  assert.deepEqual(log.mock.calls[0]?.arguments, ["order.paid", "evt_1"]);
  assert.deepEqual((await post(BODY, good))[0], 200); // a replay: acknowledged, not processed
  assert.equal(log.mock.callCount(), 1);
  const stale = signer.headers("evt_3", BODY, 1_600_000_000);
  assert.deepEqual(await post(BODY, stale), [401, "timestamp_too_old"]);
  // Any content type reaches the verifier as raw bytes.
  const plain = signer.headers("evt_4", BODY);
  assert.deepEqual((await post(BODY, plain, "text/plain"))[0], 204);
});

test("the README shows the example verbatim", () => {
  const readme = readFileSync(path.join(PACKAGE_ROOT, "README.md"), "utf8");
  const example = readFileSync(path.join(PACKAGE_ROOT, "examples/express.ts"), "utf8");
  assert.ok(readme.includes("```ts\n" + example + "```"), "README.md must show examples/express.ts verbatim");
});
