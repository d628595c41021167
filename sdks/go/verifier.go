package relay

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultTolerance is five minutes, either side, inclusive.
const DefaultTolerance = 300 * time.Second

// Verifier checks Relay's signature headers with one or more keys. It is
// safe for concurrent use.
type Verifier struct {
	keys      []*key
	tolerance time.Duration
}

// Option configures a [Verifier].
type Option func(*Verifier)

// WithTolerance sets how far webhook-timestamp may be from now, either
// side, inclusive (default [DefaultTolerance]); it counts whole seconds.
func WithTolerance(d time.Duration) Option {
	return func(v *Verifier) { v.tolerance = d }
}

// NewVerifier builds a verifier from "whsec_…" (v1) and/or "whpk_…" (v1a)
// keys: one, or during a rotation the new and the old. It fails with a
// [*KeyError] for a key that cannot be used (a "whsk_" signing key
// included: consumers need only the public key) or when there is none, and
// with an error for a negative tolerance.
func NewVerifier(keys []string, opts ...Option) (*Verifier, error) {
	v := &Verifier{tolerance: DefaultTolerance}
	for _, text := range keys {
		k, err := parseKey(text)
		if err != nil {
			return nil, err
		}
		v.keys = append(v.keys, k)
	}
	if len(v.keys) == 0 {
		return nil, &KeyError{Reason: "a verifier needs at least one key"}
	}
	for _, opt := range opts {
		opt(v)
	}
	if v.tolerance < 0 {
		return nil, errors.New("relay: the tolerance must not be negative")
	}
	return v, nil
}

// Tolerance is the configured timestamp tolerance.
func (v *Verifier) Tolerance() time.Duration { return v.tolerance }

// String shows the public keys and the tolerance, never a secret.
func (v *Verifier) String() string {
	parts := make([]string, len(v.keys))
	for i, k := range v.keys {
		parts[i] = k.String()
	}
	return "Verifier([" + strings.Join(parts, ", ") + "], tolerance=" + v.tolerance.String() + ")"
}

// Verify checks a request against the system clock; see [Verifier.VerifyAt].
func (v *Verifier) Verify(h Headers, body []byte) error {
	return v.VerifyAt(h, body, time.Now())
}

// VerifyAt checks a request as of now: nil, or an [*Error].
//
// h holds the headers (r.Header in net/http); body is the raw body exactly
// as received (io.ReadAll(r.Body)), never re-serialized JSON. It checks, in
// order: the three headers are present and non-empty (CodeMissingHeader);
// webhook-timestamp is ASCII digits (CodeInvalidTimestamp) within the
// tolerance of now (CodeTimestampTooOld, CodeTimestampTooNew); an entry of
// webhook-signature verifies with one key of its version
// (CodeNoMatchingSignature). Entries of unknown versions and malformed
// entries are skipped; only canonical, padded base64 is accepted.
func (v *Verifier) VerifyAt(h Headers, body []byte, now time.Time) error {
	id, err := required(h, HeaderWebhookID)
	if err != nil {
		return err
	}
	timestamp, err := required(h, HeaderWebhookTimestamp)
	if err != nil {
		return err
	}
	signature, err := required(h, HeaderWebhookSignature)
	if err != nil {
		return err
	}
	sent, ok := parseTimestamp(timestamp)
	if !ok {
		return &Error{Code: CodeInvalidTimestamp}
	}
	unix := now.Unix()
	tolerance := int64(v.tolerance / time.Second)
	if sent < subSaturating(unix, tolerance) {
		return &Error{Code: CodeTimestampTooOld, Timestamp: sent, Now: unix}
	}
	if sent > addSaturating(unix, tolerance) {
		return &Error{Code: CodeTimestampTooNew, Timestamp: sent, Now: unix}
	}
	content := make([]byte, 0, len(id)+len(timestamp)+2+len(body))
	content = append(append(append(append(append(content, id...), '.'), timestamp...), '.'), body...)
	for _, entry := range strings.Split(signature, " ") {
		version, encoded, found := strings.Cut(entry, ",")
		if !found || !v.hasVersion(version) {
			continue
		}
		raw, ok := decodeStrict(encoded)
		if !ok {
			continue
		}
		for _, k := range v.keys {
			if k.version == version && k.verify(content, raw) {
				return nil
			}
		}
	}
	return &Error{Code: CodeNoMatchingSignature}
}

// VerifyOnce is [Verifier.VerifyOnceAt] with the system clock.
func (v *Verifier) VerifyOnce(h Headers, body []byte, store SeenStore) error {
	return v.VerifyOnceAt(h, body, store, time.Now())
}

// VerifyOnceAt is [Verifier.VerifyAt], then records the webhook-id in
// store: an [*Error] with CodeDuplicate when it was already there (answer
// it with a 2xx: it is a retry or a replay of something processed). Only a
// request that verifies is recorded. An error of the store is returned as
// it is.
func (v *Verifier) VerifyOnceAt(h Headers, body []byte, store SeenStore, now time.Time) error {
	if err := v.VerifyAt(h, body, now); err != nil {
		return err
	}
	id, err := required(h, HeaderWebhookID)
	if err != nil {
		return err
	}
	fresh, err := store.CheckAndInsert(id, now)
	if err != nil {
		return err
	}
	if !fresh {
		return &Error{Code: CodeDuplicate, WebhookID: id}
	}
	return nil
}

func (v *Verifier) hasVersion(version string) bool {
	for _, k := range v.keys {
		if k.version == version {
			return true
		}
	}
	return false
}

// parseTimestamp reads ASCII digits (leading zeros allowed) up to 2^63-1.
func parseTimestamp(s string) (int64, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func addSaturating(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func subSaturating(a, b int64) int64 {
	if b > 0 && a < math.MinInt64+b {
		return math.MinInt64
	}
	return a - b
}
