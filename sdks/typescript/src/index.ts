/**
 * Verify webhooks from Relay over the raw request body, with Node's built-in
 * `crypto` only.
 *
 * Relay signs every delivery with the Standard Webhooks profile:
 * `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature`, a
 * space-separated list of `<version>,<base64>` entries over
 * `{webhook-id}.{webhook-timestamp}.{raw body}`:
 *
 * - `v1a`: Ed25519 (Relay's default), verified with the public key `whpk_…`;
 * - `v1`: HMAC-SHA256, verified with the secret `whsec_…`.
 *
 * @packageDocumentation
 */

import { createHmac, createPublicKey, timingSafeEqual, verify as cryptoVerify } from "node:crypto";
import type { KeyObject } from "node:crypto";

/** Five minutes, either side, inclusive. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** 96 hours: longer than Relay's retry window (about 76 hours). */
export const MIN_RETENTION_SECONDS = 96 * 3600;

const SWEEP_EVERY_SECONDS = 60;
const I64_MAX = 2n ** 63n - 1n;

export const WEBHOOK_ID = "webhook-id";
export const WEBHOOK_TIMESTAMP = "webhook-timestamp";
export const WEBHOOK_SIGNATURE = "webhook-signature";

// --- Errors -----------------------------------------------------------------

/** A stable error code, the same in Relay's Rust and Python SDKs. */
export type VerifyErrorCode =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature"
  | "duplicate";

/** A request did not verify. Check `code`, or `instanceof` a subclass. */
export class VerifyError extends Error {
  readonly code: VerifyErrorCode;
  constructor(code: VerifyErrorCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A signature header is absent or empty. */
export class MissingHeaderError extends VerifyError {
  constructor(readonly header: string) {
    super("missing_header", `the ${header} header is missing or empty`);
  }
}

/** `webhook-timestamp` is not a whole, non-negative number of unix seconds. */
export class InvalidTimestampError extends VerifyError {
  constructor() {
    super("invalid_timestamp", "webhook-timestamp is not a whole number of unix seconds");
  }
}

/** `webhook-timestamp` is further in the past than the tolerance. */
export class TimestampTooOldError extends VerifyError {
  constructor(
    readonly timestamp: bigint,
    readonly now: number,
  ) {
    super("timestamp_too_old", `webhook-timestamp ${timestamp} is too old (now is ${now})`);
  }
}

/** `webhook-timestamp` is further in the future than the tolerance. */
export class TimestampTooNewError extends VerifyError {
  constructor(
    readonly timestamp: bigint,
    readonly now: number,
  ) {
    super(
      "timestamp_too_new",
      `webhook-timestamp ${timestamp} is too far in the future (now is ${now})`,
    );
  }
}

/** No entry of `webhook-signature` verifies with any of the keys. */
export class NoMatchingSignatureError extends VerifyError {
  constructor() {
    super("no_matching_signature", "no signature matched any key");
  }
}

/**
 * The request verified, but its `webhook-id` was already seen (only from
 * {@link Verifier.verifyOnce}). Reply 2xx: it is a retry or a replay.
 */
export class DuplicateError extends VerifyError {
  constructor(readonly webhookId: string) {
    super("duplicate", `webhook-id ${JSON.stringify(webhookId)} was already seen`);
  }
}

/** A key string that cannot be used to verify; `code` is always `invalid_key`. */
export class InvalidKeyError extends Error {
  readonly code = "invalid_key" as const;
  constructor(message: string) {
    super(message);
    this.name = "InvalidKeyError";
  }
}

// --- Keys -------------------------------------------------------------------

/** Canonical standard base64 with padding, or undefined. */
function decodeBase64Strict(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    return undefined;
  }
  const raw = Buffer.from(text, "base64");
  return raw.toString("base64") === text ? raw : undefined;
}

interface Key {
  readonly version: "v1" | "v1a";
  verify(content: Buffer, signature: Buffer): boolean;
}

class HmacKey implements Key {
  readonly version = "v1" as const;
  readonly #secret: Buffer;
  constructor(secret: Buffer) {
    this.#secret = secret;
  }
  verify(content: Buffer, signature: Buffer): boolean {
    const expected = createHmac("sha256", this.#secret).update(content).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  toJSON(): string {
    return "HmacKey(<redacted>)";
  }
}

class Ed25519Key implements Key {
  readonly version = "v1a" as const;
  readonly #key: KeyObject;
  constructor(
    readonly text: string,
    raw: Buffer,
  ) {
    try {
      this.#key = createPublicKey({
        key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") },
        format: "jwk",
      });
    } catch {
      throw new InvalidKeyError("the public key is not a valid Ed25519 key");
    }
  }
  verify(content: Buffer, signature: Buffer): boolean {
    if (signature.length !== 64) {
      return false;
    }
    try {
      return cryptoVerify(null, content, this.#key, signature);
    } catch {
      return false;
    }
  }
  toJSON(): string {
    return `Ed25519Key(${this.text})`;
  }
}

function parseKey(input: unknown): Key {
  if (typeof input !== "string") {
    throw new InvalidKeyError("a key is a string");
  }
  const text = input.trim();
  if (text.startsWith("whsec_")) {
    const raw = decodeBase64Strict(text.slice("whsec_".length));
    if (raw === undefined) {
      throw new InvalidKeyError("the key is not valid base64");
    }
    if (raw.length < 24 || raw.length > 64) {
      throw new InvalidKeyError(`the key has ${raw.length} bytes; an HMAC secret has 24 to 64 bytes`);
    }
    return new HmacKey(raw);
  }
  if (text.startsWith("whpk_")) {
    const raw = decodeBase64Strict(text.slice("whpk_".length));
    if (raw === undefined) {
      throw new InvalidKeyError("the key is not valid base64");
    }
    if (raw.length !== 32) {
      throw new InvalidKeyError(`the key has ${raw.length} bytes; an Ed25519 public key has 32 bytes`);
    }
    return new Ed25519Key(text, raw);
  }
  if (text.startsWith("whsk_")) {
    throw new InvalidKeyError(
      "this is an Ed25519 signing key (whsk_); verify with its public key (whpk_) and keep the signing key out of consumers",
    );
  }
  throw new InvalidKeyError("a verification key starts with whsec_ (v1) or whpk_ (v1a)");
}

// --- Headers ----------------------------------------------------------------

/** A header value as Node (`IncomingHttpHeaders`) or a plain object holds it. */
export type HeaderValue = string | string[] | undefined | null;

/**
 * Request headers: Node's / Express's `req.headers`, a Fetch `Headers` (or
 * anything with `get(name)`, such as a `Map`), or a plain object. Names are
 * matched case-insensitively.
 */
export type HeadersLike =
  | { get(name: string): string | string[] | null | undefined }
  | Readonly<Record<string, HeaderValue>>;

function header(headers: HeadersLike, name: string): string | undefined {
  let value: unknown;
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === "function") {
    value = (getter as (n: string) => unknown).call(headers, name);
  } else {
    const record = headers as Record<string, unknown>;
    value = Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
    if (value === undefined) {
      for (const key of Object.keys(record)) {
        if (key.toLowerCase() === name) {
          value = record[key];
          break;
        }
      }
    }
  }
  if (Array.isArray(value)) {
    value = value[0];
  }
  return typeof value === "string" ? value : undefined;
}

function required(headers: HeadersLike, name: string): string {
  const value = header(headers, name);
  if (value === undefined || value === "") {
    throw new MissingHeaderError(name);
  }
  return value;
}

// --- Dedup ------------------------------------------------------------------

/**
 * Where verified `webhook-id`s are remembered. Back it with whatever your
 * processes share (a table with a unique key, Redis `SET NX EX`, …) and keep
 * ids at least {@link MIN_RETENTION_SECONDS}.
 */
export interface SeenStore {
  /**
   * Records `webhookId` as seen at `now` (unix seconds): `true` the first
   * time, `false` when it was already seen within the retention. Must be
   * atomic. May return a promise (use {@link Verifier.verifyOnce}, which is async).
   */
  checkAndInsert(webhookId: string, now: number): boolean | Promise<boolean>;
}

/**
 * A {@link SeenStore} in process memory (one process; forgotten on restart).
 * Keeps ids for `retentionSeconds` (96 hours by default; smaller values are
 * raised to 96 hours) and drops older ones, sweeping at most once a minute.
 */
export class MemorySeenStore implements SeenStore {
  readonly retentionSeconds: number;
  readonly #seen = new Map<string, number>();
  #nextSweep = 0;

  constructor(retentionSeconds: number = MIN_RETENTION_SECONDS) {
    this.retentionSeconds = Math.max(Math.floor(retentionSeconds), MIN_RETENTION_SECONDS);
  }

  get size(): number {
    return this.#seen.size;
  }

  checkAndInsert(webhookId: string, now: number): boolean {
    const live = (seenAt: number) => now - seenAt <= this.retentionSeconds;
    if (now >= this.#nextSweep) {
      for (const [id, seenAt] of this.#seen) {
        if (!live(seenAt)) {
          this.#seen.delete(id);
        }
      }
      this.#nextSweep = now + SWEEP_EVERY_SECONDS;
    }
    const seenAt = this.#seen.get(webhookId);
    if (seenAt !== undefined && live(seenAt)) {
      return false;
    }
    this.#seen.set(webhookId, now);
    return true;
  }
}

// --- Verifier ---------------------------------------------------------------

/** Options of {@link Verifier}. */
export interface VerifierOptions {
  /** Timestamp tolerance in seconds, either side, inclusive (default 300). */
  toleranceSeconds?: number;
}

/** Options of one verification. */
export interface VerifyOptions {
  /** "Now" in unix seconds, for tests (default: the system clock). */
  now?: number;
}

/** The raw body: a `Buffer`/`Uint8Array`, or a string (its UTF-8 bytes). */
export type RawBody = Uint8Array | ArrayBuffer | string;

function toBuffer(body: RawBody): Buffer {
  if (typeof body === "string") {
    return Buffer.from(body, "utf8");
  }
  if (body instanceof Uint8Array) {
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  }
  if (body instanceof ArrayBuffer) {
    return Buffer.from(body);
  }
  throw new TypeError(
    "body must be the raw request body (Buffer, Uint8Array or string), not a parsed object; use express.raw()",
  );
}

/**
 * Checks Relay's signature headers with one or more keys (`whsec_…` and/or
 * `whpk_…`; during a rotation, the new and the old). Throws
 * {@link InvalidKeyError} for a key that cannot be used, or when there is none.
 */
export class Verifier {
  readonly toleranceSeconds: number;
  readonly #keys: Key[];

  constructor(keys: string | readonly string[], options: VerifierOptions = {}) {
    const list = typeof keys === "string" ? [keys] : Array.from(keys);
    this.#keys = list.map(parseKey);
    if (this.#keys.length === 0) {
      throw new InvalidKeyError("a verifier needs at least one key");
    }
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!Number.isFinite(tolerance) || tolerance < 0) {
      throw new RangeError("toleranceSeconds must be a non-negative number");
    }
    this.toleranceSeconds = Math.floor(tolerance);
  }

  /**
   * Verifies a request; returns nothing or throws a {@link VerifyError}.
   *
   * Checks, in order: the three headers are present and non-empty; the
   * timestamp is ASCII digits and within the tolerance of now; one entry of
   * `webhook-signature` verifies with one key of its version. Entries of
   * unknown versions and malformed entries are skipped.
   */
  verify(headers: HeadersLike, body: RawBody, options: VerifyOptions = {}): void {
    const webhookId = required(headers, WEBHOOK_ID);
    const timestamp = required(headers, WEBHOOK_TIMESTAMP);
    const signature = required(headers, WEBHOOK_SIGNATURE);
    if (!/^[0-9]+$/.test(timestamp)) {
      throw new InvalidTimestampError();
    }
    const sent = BigInt(timestamp);
    if (sent > I64_MAX) {
      throw new InvalidTimestampError();
    }
    const now = options.now ?? Math.floor(Date.now() / 1000);
    const nowBig = BigInt(Math.floor(now));
    const tolerance = BigInt(this.toleranceSeconds);
    if (sent + tolerance < nowBig) {
      throw new TimestampTooOldError(sent, now);
    }
    if (sent > nowBig + tolerance) {
      throw new TimestampTooNewError(sent, now);
    }
    const content = Buffer.concat([Buffer.from(`${webhookId}.${timestamp}.`, "utf8"), toBuffer(body)]);
    const versions = new Set(this.#keys.map((k) => k.version));
    for (const entry of signature.split(" ")) {
      const comma = entry.indexOf(",");
      if (comma < 0) {
        continue;
      }
      const version = entry.slice(0, comma);
      if (!versions.has(version as Key["version"])) {
        continue;
      }
      const raw = decodeBase64Strict(entry.slice(comma + 1));
      if (raw === undefined) {
        continue;
      }
      for (const key of this.#keys) {
        if (key.version === version && key.verify(content, raw)) {
          return;
        }
      }
    }
    throw new NoMatchingSignatureError();
  }

  /**
   * {@link Verifier.verify}, then records the `webhook-id` in `store`;
   * rejects with {@link DuplicateError} when it was already there. Only a
   * request that verifies is recorded.
   */
  async verifyOnce(
    headers: HeadersLike,
    body: RawBody,
    store: SeenStore,
    options: VerifyOptions = {},
  ): Promise<void> {
    const now = options.now ?? Math.floor(Date.now() / 1000);
    this.verify(headers, body, { now });
    const webhookId = required(headers, WEBHOOK_ID);
    if (!(await store.checkAndInsert(webhookId, now))) {
      throw new DuplicateError(webhookId);
    }
  }

  toJSON(): object {
    return { keys: this.#keys.map((k) => (k as HmacKey | Ed25519Key).toJSON()), toleranceSeconds: this.toleranceSeconds };
  }
}

// The API client, in the same package (`import { Relay } from "@relay/sdk"`).
export * from "./client/index";
