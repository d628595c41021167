// The README's quickstart (examples/quickstart.ts, shown verbatim in
// README.md) run end to end against a real `relay serve`: the event type,
// consumer and endpoint are made, the publish is delivered to an HTTPS
// receiver and verified with the quickstart's verifier, the message is
// listed, a portal token minted, and a 422 surfaces as a typed error.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { quickstart } from "../examples/quickstart";
import { Relay, ValidationError } from "../src/index";
import { PACKAGE_ROOT } from "./helpers";
import { Receiver, RelayServer, tempDir } from "./relay-process";

test("the README shows the quickstart verbatim", () => {
  const readme = readFileSync(path.join(PACKAGE_ROOT, "README.md"), "utf8");
  const example = readFileSync(path.join(PACKAGE_ROOT, "examples/quickstart.ts"), "utf8");
  assert.ok(readme.includes("```ts\n" + example + "```"), "README.md must show examples/quickstart.ts verbatim");
});

test("the quickstart end to end against relay serve", async () => {
  const { dir, remove } = tempDir();
  const receiver = await new Receiver(dir).start();
  const server = new RelayServer();
  const printed: string[] = [];
  const log = console.log;
  try {
    await server.start(dir, receiver);
    const key = await server.apiKey();
    console.log = (...args: unknown[]) => void printed.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    let ran;
    try {
      ran = await quickstart({ RELAY_API_KEY: key, RELAY_URL: server.url, WEBHOOK_URL: receiver.url });
    } finally {
      console.log = log;
    }
    // The delivery arrives and the quickstart's verifier accepts it.
    const delivery = await receiver.next(60_000);
    ran.verifier.verify(delivery.headers, delivery.body);
    assert.equal(delivery.headers["webhook-id"], ran.event.id);
    assert.match(ran.event.id, /^evt_/);
    assert.equal(ran.event.messages_created, 1);
    // The message was listed, the portal link printed, the 422 typed.
    assert.match(printed[0], /^msg_\S+ \S+$/, printed.join("\n"));
    assert.match(printed[1], /#token=rpt_/);
    assert.match(printed[2], /^422 schema_violation \["\/data"\] req_[0-9a-f]{32}$/, printed.join("\n"));

    // The same publish again with the id the SDK chose: Relay's duplicate.
    const again = await ran.relay.events.publish({
      type: "order.paid",
      data: { id: "o_1042", total: 4200 },
      id: ran.event.id,
      consumer_id: ran.consumer.id,
    });
    assert.ok(again.duplicate);
    const relay = new Relay({ apiKey: key, baseUrl: server.url });
    const err = await relay.events.publish({ type: "no.such.type", data: {} }).catch((e: unknown) => e);
    assert.ok(err instanceof ValidationError && err.code === "unknown_event_type", String(err));
  } finally {
    await server.stop();
    await receiver.close();
    remove();
  }
});
