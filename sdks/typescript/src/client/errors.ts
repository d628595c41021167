import type { components } from "../generated/api";

export type Problem = components["schemas"]["Problem"];
export type FieldError = components["schemas"]["FieldError"];

/** Anything that went wrong calling Relay. */
export class RelayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** No answer: the connection failed or timed out (after the retries). */
export class RelayConnectionError extends RelayError {
  constructor(message: string, readonly requestId: string, override readonly cause?: unknown) {
    super(message);
  }
}

/**
 * Relay answered an error (RFC 9457 problem+json): `status`, Relay's stable
 * `code`, the fields at fault (`errors`, empty when none), the request's id
 * (the `X-Request-Id` the SDK sent with the attempt, or the one Relay
 * answered with) and the whole `problem`.
 */
export class ProblemError extends RelayError {
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[];

  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
    readonly requestId: string,
    readonly retryAfter: number | undefined,
  ) {
    const code = typeof problem.code === "string" ? problem.code : `http_${status}`;
    const detail = typeof problem.detail === "string" ? problem.detail : "";
    const title = typeof problem.title === "string" ? problem.title : "";
    super(`${status} ${code}: ${detail || title}`);
    this.code = code;
    this.title = title;
    this.detail = detail;
    this.errors = Array.isArray(problem.errors)
      ? problem.errors
          .filter((e): e is FieldError => typeof e === "object" && e !== null)
          .map((e) => ({ field: String(e.field ?? ""), message: String(e.message ?? "") }))
      : [];
  }

  /** The typed error for an answer's status and (problem+json) body text. */
  static from(status: number, body: string, requestId: string, retryAfter?: number): ProblemError {
    let problem: Partial<Problem> = {};
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) problem = parsed;
    } catch {
      // not JSON: the status alone
    }
    const Kind =
      status === 422
        ? ValidationError
        : status === 404
          ? NotFoundError
          : status === 401 || status === 403
            ? AuthenticationError
            : status === 409
              ? ConflictError
              : status === 429 || status === 503
                ? RateLimitedError
                : ProblemError;
    return new Kind(status, problem, requestId, retryAfter);
  }
}

/** 422: understood but refused; see `code` and `errors`. */
export class ValidationError extends ProblemError {}
/** 404: no such object (in this key's tenant and environment). */
export class NotFoundError extends ProblemError {}
/** 401 or 403: the key is missing, wrong, revoked or not allowed this. */
export class AuthenticationError extends ProblemError {}
/** 409: the object changed or already exists. */
export class ConflictError extends ProblemError {}
/** 429 or 503 still answered after the last retry; `retryAfter` in seconds. */
export class RateLimitedError extends ProblemError {}
