// Package relayverify verifies webhooks from Relay over the raw request
// body, with Go's standard library only.
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
package relayverify
