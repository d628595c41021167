// The hand-written client against a local fake of the API: retries and
// Retry-After, the idempotency key kept across retries, typed errors,
// pagination, timeouts and the User-Agent.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

import {
  NotFoundError,
  ProblemError,
  RateLimitedError,
  Relay,
  RelayConnectionError,
  USER_AGENT,
  VERSION,
  ValidationError,
  parseRetryAfter,
} from "../src/index";
import { FakeRelay } from "./fake";
import { PACKAGE_ROOT, load } from "./helpers";

const DOC = load(path.resolve(PACKAGE_ROOT, "../../docs/openapi.json"));
const PUBLISHED = DOC.components.schemas.Published.examples[0];
const CONSUMER = DOC.components.schemas.Consumer.examples[0];
const BUSY = { type: "urn:relay:problem:busy", title: "Too Many Requests", status: 429, code: "busy", detail: "busy" };

async function setup(options: Record<string, unknown> = {}) {
  const fake = await new FakeRelay().start();
  const slept: number[] = [];
  const relay = new Relay({
    apiKey: "rk_live_test",
    baseUrl: fake.url,
    timeoutMs: 2000,
    sleep: async (ms) => {
      slept.push(ms);
    },
    ...options,
  });
  return { fake, slept, relay };
}

test("publish chooses an id and keeps it across retries", async () => {
  const { fake, slept, relay } = await setup();
  try {
    fake.answer(429, BUSY, { "retry-after": "2" });
    fake.answer(503, { code: "unavailable", status: 503 });
    fake.answer(202, PUBLISHED);
    const published = await relay.events.publish({ type: "order.paid", data: { id: "o_1" } });
    assert.equal(published.id, PUBLISHED.id);
    const ids = fake.requests.map((r) => r.body.id);
    assert.equal(ids.length, 3);
    assert.match(ids[0], /^evt_[0-9a-f]{32}$/);
    assert.equal(new Set(ids).size, 1);
    assert.equal(slept[0], 2000); // Retry-After, exactly
    assert.ok(slept[1] >= 0 && slept[1] <= 1000, `jittered backoff: ${slept[1]}`);
    assert.equal(new Set(fake.requests.map((r) => r.headers["x-request-id"])).size, 3);
  } finally {
    await fake.close();
  }
});

test("publish keeps the caller's id", async () => {
  const { fake, relay } = await setup();
  try {
    fake.answer(202, PUBLISHED);
    await relay.events.publish({ type: "order.paid", data: {}, id: "order-1", consumer_id: "con_1" });
    assert.deepEqual(fake.requests[0].body, { type: "order.paid", data: {}, id: "order-1", consumer_id: "con_1" });
  } finally {
    await fake.close();
  }
});

test("Retry-After as seconds or an HTTP date", () => {
  const now = Date.now();
  const inThirty = parseRetryAfter(new Date(now + 30_000).toUTCString(), now)!;
  assert.ok(inThirty > 28_000 && inThirty <= 30_000, String(inThirty));
  assert.equal(parseRetryAfter("7"), 7000);
  assert.equal(parseRetryAfter("soon"), undefined);
  assert.equal(parseRetryAfter(new Date(now - 60_000).toUTCString(), now), 0);
});

test("gives up after maxRetries with a typed error", async () => {
  const { fake, slept, relay } = await setup({ maxRetries: 2 });
  try {
    for (let i = 0; i < 3; i++) fake.answer(429, BUSY, { "retry-after": "1" });
    const err = await relay.consumers.get("con_1").catch((e: unknown) => e);
    assert.ok(err instanceof RateLimitedError);
    assert.deepEqual([err.status, err.code, err.retryAfter], [429, "busy", 1]);
    assert.deepEqual(slept, [1000, 1000]);
    assert.equal(fake.requests.length, 3);
  } finally {
    await fake.close();
  }
});

test("a Retry-After too long is not waited for", async () => {
  const { fake, slept, relay } = await setup({ maxRetryWaitMs: 10_000 });
  try {
    fake.answer(503, { code: "unavailable", status: 503 }, { "retry-after": "3600" });
    const err = await relay.consumers.get("con_1").catch((e: unknown) => e);
    assert.ok(err instanceof RateLimitedError && err.retryAfter === 3600);
    assert.deepEqual(slept, []);
  } finally {
    await fake.close();
  }
});

test("problem+json becomes a typed error with the request id", async () => {
  const { fake, relay } = await setup();
  try {
    fake.answer(422, {
      type: "urn:relay:problem:schema_violation",
      title: "Unprocessable Entity",
      status: 422,
      code: "schema_violation",
      detail: "/data/total: expected integer",
      errors: [{ field: "/data/total", message: "expected integer" }],
    });
    const err = await relay.events.publish({ type: "order.paid", data: { total: "x" } }).catch((e: unknown) => e);
    assert.ok(err instanceof ValidationError && err instanceof ProblemError);
    assert.deepEqual([err.status, err.code, err.detail], [422, "schema_violation", "/data/total: expected integer"]);
    assert.deepEqual(err.errors, [{ field: "/data/total", message: "expected integer" }]);
    assert.equal(err.requestId, fake.requests[0].headers["x-request-id"]);
    assert.match(err.requestId, /^req_/);
    fake.answer(404, { code: "not_found", status: 404, title: "Not Found" }, { "x-request-id": "srv-1" });
    const missing = await relay.endpoints.get("ep_x").catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError);
    assert.deepEqual([missing.code, missing.requestId, missing.errors], ["not_found", "srv-1", []]);
  } finally {
    await fake.close();
  }
});

test("pagination is an async iterator following next_after", async () => {
  const { fake, relay } = await setup();
  try {
    fake.answer(200, { data: [{ ...CONSUMER, id: "con_1" }, { ...CONSUMER, id: "con_2" }], next_after: "con_2" });
    fake.answer(200, { data: [{ ...CONSUMER, id: "con_3" }], next_after: "con_3" });
    fake.answer(200, { data: [], next_after: null });
    const ids: string[] = [];
    for await (const c of relay.consumers.list({ limit: 2 })) ids.push(c.id);
    assert.deepEqual(ids, ["con_1", "con_2", "con_3"]);
    assert.deepEqual(
      fake.requests.map((r) => r.url),
      ["/v1/consumers?limit=2", "/v1/consumers?limit=2&after=con_2", "/v1/consumers?limit=2&after=con_3"],
    );
  } finally {
    await fake.close();
  }
});

test("an empty page that names the next goes on", async () => {
  // A filtered list reads a bounded span per page: a page may be empty and
  // still name the next; a cursor that does not move on ends it.
  const { fake, relay } = await setup();
  try {
    fake.answer(200, { data: [], next_after: "con_5" });
    fake.answer(200, { data: [{ ...CONSUMER, id: "con_6" }], next_after: "con_6" });
    fake.answer(200, { data: [], next_after: "con_6" });
    const ids: string[] = [];
    for await (const c of relay.consumers.list({ limit: 2 })) ids.push(c.id);
    assert.deepEqual(ids, ["con_6"]);
    assert.deepEqual(
      fake.requests.map((r) => r.url),
      ["/v1/consumers?limit=2", "/v1/consumers?limit=2&after=con_5", "/v1/consumers?limit=2&after=con_6"],
    );
  } finally {
    await fake.close();
  }
});

test("user agent and key", async () => {
  const { fake, relay } = await setup();
  try {
    fake.answer(200, { data: [], next_after: null });
    for await (const _ of relay.endpoints.list({ consumer_id: "con_1" })) void _;
    const headers = fake.requests[0].headers;
    assert.equal(headers["user-agent"], USER_AGENT);
    assert.equal(USER_AGENT, `relay-sdk-typescript/${VERSION}`);
    assert.equal(VERSION, load(path.join(PACKAGE_ROOT, "package.json")).version);
    assert.equal(headers.authorization, "Bearer rk_live_test");
    assert.equal(fake.requests[0].url, "/v1/endpoints?consumer_id=con_1");
  } finally {
    await fake.close();
  }
});

test("a timeout is retried only when safe, then thrown", async () => {
  // A server that accepts and never answers.
  const sockets: import("node:net").Socket[] = [];
  const silent = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const slept: number[] = [];
  const relay = new Relay({
    apiKey: "k",
    baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
    timeoutMs: 200,
    maxRetries: 1,
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  try {
    const err = await relay.consumers.get("con_1").catch((e: unknown) => e);
    assert.ok(err instanceof RelayConnectionError, String(err));
    assert.match(err.requestId, /^req_/);
    assert.equal(slept.length, 1);
    slept.length = 0;
    const post = await relay.consumers.create({ external_id: "c1" }).catch((e: unknown) => e);
    assert.ok(post instanceof RelayConnectionError);
    assert.deepEqual(slept, []);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});
