import { randomUUID } from "node:crypto";

import { ProblemError, RelayConnectionError } from "./errors";
import { USER_AGENT } from "./version";

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  /** Milliseconds for each attempt (default 30 000). */
  timeoutMs?: number;
  /** Retries of a 429/503, or of a lost connection when safe (default 3). */
  maxRetries?: number;
  /** Backoff without Retry-After: full jitter up to min(cap, base * 2^n) ms. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** A longer Retry-After is not waited for: the error is thrown (default 60 000). */
  maxRetryWaitMs?: number;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
  /** For tests or proxies: the fetch to use (default the global one). */
  fetch?: typeof fetch;
}

export interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** May be repeated after a lost connection (reads, PUT, DELETE, publish). */
  safe?: boolean;
}

export const RETRY_STATUSES = [429, 503];

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const when = Date.parse(v);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, when - now);
}

/** One HTTP client and the retry policy every call goes through. */
export class Transport {
  readonly #o: Required<Omit<TransportOptions, "fetch">> & { fetch: typeof fetch };

  constructor(options: TransportOptions) {
    this.#o = {
      timeoutMs: 30_000,
      maxRetries: 3,
      backoffBaseMs: 500,
      backoffCapMs: 30_000,
      maxRetryWaitMs: 60_000,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      fetch: globalThis.fetch,
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
    };
  }

  backoff(attempt: number): number {
    return Math.random() * Math.min(this.#o.backoffCapMs, this.#o.backoffBaseMs * 2 ** attempt);
  }

  url(path: string, query?: Query): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) params.append(k, String(v));
    }
    const qs = params.toString();
    return this.#o.baseUrl + path + (qs ? `?${qs}` : "");
  }

  /** Sends a call with retries; the parsed JSON of a 2xx (undefined for 204). */
  async call<T>(call: Call): Promise<T> {
    const url = this.url(call.path, call.query);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempt = 0; ; attempt++) {
      const requestId = `req_${randomUUID().replace(/-/g, "")}`;
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.#o.apiKey}`,
        "user-agent": USER_AGENT,
        accept: "application/json, application/problem+json",
        "x-request-id": requestId,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...call.headers,
      };
      let response: Response;
      let text: string;
      try {
        response = await this.#o.fetch(url, {
          method: call.method,
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(this.#o.timeoutMs),
        });
        text = await response.text();
      } catch (e) {
        if (call.safe && attempt < this.#o.maxRetries) {
          await this.#o.sleep(this.backoff(attempt));
          continue;
        }
        throw new RelayConnectionError(`${call.method} ${call.path}: ${String(e)}`, requestId, e);
      }
      if (response.status >= 200 && response.status < 300) {
        return (text ? JSON.parse(text) : undefined) as T;
      }
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      if (RETRY_STATUSES.includes(response.status) && attempt < this.#o.maxRetries) {
        const wait = retryAfter ?? this.backoff(attempt);
        if (wait <= this.#o.maxRetryWaitMs) {
          await this.#o.sleep(wait);
          continue;
        }
      }
      const answeredId = response.headers.get("x-request-id") ?? requestId;
      throw ProblemError.from(
        response.status,
        text,
        answeredId,
        retryAfter === undefined ? undefined : retryAfter / 1000,
      );
    }
  }

  /**
   * Every item of a paginated list, fetching pages (`next_after`) as it goes.
   * A page may hold fewer items than asked, or none, and still name the
   * next: the list ends when `next_after` is absent, or does not move on.
   */
  async *pages<T>(path: string, query: Query = {}): AsyncGenerator<T, void, undefined> {
    let after = query.after ?? undefined;
    for (;;) {
      const page = await this.call<{ data: T[]; next_after?: string | null }>({
        method: "GET",
        path,
        query: { ...query, after },
        safe: true,
      });
      yield* page.data;
      if (typeof page.next_after !== "string" || page.next_after === after) return;
      after = page.next_after;
    }
  }
}
