/**
 * Relay's API client: its types are generated from Relay's OpenAPI document
 * (`src/generated/api.ts`, by openapi-typescript); this layer adds an
 * idempotency key on every publish, pagination as async iterators,
 * problem+json answers as typed errors, retries with backoff honouring
 * `Retry-After`, timeouts and a `User-Agent: relay-sdk-typescript/<version>`.
 */
export {
  AuthenticationError,
  ConflictError,
  type FieldError,
  NotFoundError,
  type Problem,
  ProblemError,
  RateLimitedError,
  RelayConnectionError,
  RelayError,
  ValidationError,
} from "./errors";
export { Consumers, Endpoints, Events, EventTypes, Messages, newEventId, PortalTokens, Relay, type RelayOptions, type Schemas } from "./relay";
export { type Call, parseRetryAfter, type Query, type TransportOptions } from "./transport";
export { USER_AGENT, VERSION } from "./version";
export type { components, operations, paths } from "../generated/api";
