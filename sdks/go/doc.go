// Package relay is Relay's API client for Go, with the webhook verifier
// beside it, on the standard library only.
//
// # The client
//
// [NewClient] makes a [Client] with a tenant API key. Its operations and
// types are generated from Relay's OpenAPI document (Client.API, and the
// types of generated_types.go); over them, the client adds what an SDK
// should: an idempotency key on every publish ([Events.Publish]), lists as
// iterators ([Iter]), problem+json answers as typed errors
// ([*ProblemError], with Code, Errors and RequestID; errors.Is with
// [ErrValidation] and the other kinds), retries with backoff on 429 and
// 503 honouring Retry-After, a timeout per attempt, and a User-Agent naming
// the SDK ([UserAgent]).
//
// # The verifier
//
// Relay signs every delivery with the Standard Webhooks profile:
// webhook-id, webhook-timestamp (unix seconds) and webhook-signature, a
// space-separated list of "<version>,<base64>" entries over
// "{webhook-id}.{webhook-timestamp}.{raw body}":
//
//   - v1a: Ed25519 (Relay's default), verified with the endpoint's public
//     key "whpk_…" (crypto/ed25519);
//   - v1: HMAC-SHA256, verified with the endpoint's secret "whsec_…"
//     (crypto/hmac, compared in constant time).
//
// Build a [Verifier] from one or more keys (during a rotation, the new and
// the old), then call [Verifier.Verify] with the request's headers and its
// raw body. Errors are [*Error] values whose Code is the same in Relay's
// other SDKs; compare them with errors.Is and the Err… sentinels.
package relay
