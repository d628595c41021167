// The API beyond the vectors: errors, tolerance, header shapes, dedup.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { inspect } from "node:util";

import {
  DEFAULT_TOLERANCE_SECONDS,
  DuplicateError,
  InvalidKeyError,
  InvalidTimestampError,
  MemorySeenStore,
  MIN_RETENTION_SECONDS,
  MissingHeaderError,
  NoMatchingSignatureError,
  SeenStore,
  TimestampTooNewError,
  TimestampTooOldError,
  Verifier,
  VerifyError,
} from "../src/index";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const HEADERS = {
  "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
  "webhook-timestamp": "1614265330",
  "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const BODY = Buffer.from('{"test": 2432232314}');
const NOW = 1614265330;

test("errors are typed and carry codes", () => {
  const v = new Verifier(SECRET);
  assert.equal(v.toleranceSeconds, DEFAULT_TOLERANCE_SECONDS);
  v.verify(HEADERS, BODY, { now: NOW });
  v.verify(HEADERS, BODY.toString(), { now: NOW });
  v.verify(HEADERS, new Uint8Array(BODY).buffer, { now: NOW });
  const { "webhook-id": _id, ...noId } = HEADERS;
  assert.throws(
    () => v.verify(noId, BODY, { now: NOW }),
    (e: unknown) => e instanceof MissingHeaderError && e.header === "webhook-id" && e.code === "missing_header",
  );
  assert.throws(
    () => v.verify(HEADERS, BODY, { now: NOW + 301 }),
    (e: unknown) => e instanceof TimestampTooOldError && e.timestamp === BigInt(NOW) && e.now === NOW + 301,
  );
  assert.throws(() => v.verify(HEADERS, BODY, { now: NOW - 301 }), TimestampTooNewError);
  assert.throws(() => v.verify({ ...HEADERS, "webhook-timestamp": "9".repeat(400) }, BODY, { now: NOW }), InvalidTimestampError);
  assert.throws(() => v.verify(HEADERS, Buffer.from("{}"), { now: NOW }), VerifyError);
  // The system clock is long past 2021.
  assert.throws(() => v.verify(HEADERS, BODY), TimestampTooOldError);
  // A parsed body is refused loudly.
  assert.throws(() => v.verify(HEADERS, { test: 1 } as unknown as Buffer, { now: NOW }), TypeError);
});

test("tolerance is configurable", () => {
  const v = new Verifier([SECRET], { toleranceSeconds: 3600 });
  v.verify(HEADERS, BODY, { now: NOW + 3600 });
  assert.throws(() => v.verify(HEADERS, BODY, { now: NOW + 3601 }), TimestampTooOldError);
  const strict = new Verifier([SECRET], { toleranceSeconds: 0 });
  strict.verify(HEADERS, BODY, { now: NOW });
  assert.throws(() => strict.verify(HEADERS, BODY, { now: NOW - 1 }), TimestampTooNewError);
  assert.throws(() => new Verifier([SECRET], { toleranceSeconds: -1 }), RangeError);
});

test("header shapes", () => {
  const v = new Verifier([SECRET]);
  const upper = Object.fromEntries(Object.entries(HEADERS).map(([k, x]) => [k.toUpperCase(), x]));
  v.verify(upper, BODY, { now: NOW });
  v.verify(new Map(Object.entries(HEADERS)), BODY, { now: NOW });
  v.verify(new Headers(HEADERS), BODY, { now: NOW });
  const arrays = Object.fromEntries(Object.entries(HEADERS).map(([k, x]) => [k, [x]]));
  v.verify(arrays, BODY, { now: NOW });
  assert.throws(() => v.verify({ ...HEADERS, "webhook-signature": undefined }, BODY, { now: NOW }), MissingHeaderError);
});

test("key errors, and no secret in inspect or JSON", () => {
  assert.throws(() => new Verifier([]), InvalidKeyError);
  assert.throws(
    () => new Verifier("whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk="),
    (e: unknown) => e instanceof InvalidKeyError && e.code === "invalid_key" && /public key/.test(e.message),
  );
  assert.throws(() => new Verifier([SECRET, 42 as unknown as string]), InvalidKeyError);
  const v = new Verifier(SECRET);
  assert.ok(!inspect(v, { showHidden: true, depth: 10 }).includes("MfKQ9r8G"));
  assert.ok(!JSON.stringify(v).includes("MfKQ9r8G"));
});

test("verifyOnce records only verified ids and rejects duplicates", async () => {
  const v = new Verifier(SECRET);
  const store = new MemorySeenStore();
  await assert.rejects(v.verifyOnce(HEADERS, Buffer.from("forged"), store, { now: NOW }), NoMatchingSignatureError);
  assert.equal(store.size, 0);
  await v.verifyOnce(HEADERS, BODY, store, { now: NOW });
  await assert.rejects(
    v.verifyOnce(HEADERS, BODY, store, { now: NOW + 1 }),
    (e: unknown) => e instanceof DuplicateError && e.code === "duplicate" && e.webhookId === HEADERS["webhook-id"],
  );
});

test("an async store", async () => {
  const rows = new Set<string>();
  const table: SeenStore = {
    async checkAndInsert(id: string) {
      await new Promise((r) => setImmediate(r));
      if (rows.has(id)) return false;
      rows.add(id);
      return true;
    },
  };
  const v = new Verifier(SECRET);
  await v.verifyOnce(HEADERS, BODY, table, { now: NOW });
  await assert.rejects(v.verifyOnce(HEADERS, BODY, table, { now: NOW }), DuplicateError);
});

test("the memory store keeps ids 96 hours, then forgets them", () => {
  const store = new MemorySeenStore(60);
  assert.equal(store.retentionSeconds, MIN_RETENTION_SECONDS);
  assert.equal(MIN_RETENTION_SECONDS, 96 * 3600);
  const t0 = 1_700_000_000;
  assert.equal(store.checkAndInsert("a", t0), true);
  assert.equal(store.checkAndInsert("a", t0), false);
  assert.equal(store.checkAndInsert("b", t0 + 10), true);
  assert.equal(store.checkAndInsert("a", t0 + MIN_RETENTION_SECONDS), false);
  assert.equal(store.checkAndInsert("a", t0 + MIN_RETENTION_SECONDS + 1), true);
  assert.equal(store.checkAndInsert("b", t0 + MIN_RETENTION_SECONDS + 1), false);
  assert.equal(store.checkAndInsert("c", t0 + 10 * MIN_RETENTION_SECONDS), true);
  assert.equal(store.size, 1);
  const week = new MemorySeenStore(7 * 86400);
  assert.equal(week.checkAndInsert("x", 0), true);
  assert.equal(week.checkAndInsert("x", 7 * 86400), false);
});
