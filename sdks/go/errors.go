package relay

import (
	"fmt"
	"strconv"
)

// Codes of [Error], the same in Relay's Rust, Python, TypeScript, Java, Ruby
// and PHP verifiers.
const (
	CodeMissingHeader       = "missing_header"
	CodeInvalidTimestamp    = "invalid_timestamp"
	CodeTimestampTooOld     = "timestamp_too_old"
	CodeTimestampTooNew     = "timestamp_too_new"
	CodeNoMatchingSignature = "no_matching_signature"
	CodeDuplicate           = "duplicate"
	// CodeInvalidKey is the code of [*KeyError].
	CodeInvalidKey = "invalid_key"
)

// Error is why a request did not verify. Code is stable across Relay's
// SDKs; the other fields say more where they apply.
type Error struct {
	// Code is one of the Code… constants.
	Code string
	// Header is the header that is missing or empty (CodeMissingHeader).
	Header string
	// Timestamp and Now are the sent and the current unix seconds
	// (CodeTimestampTooOld, CodeTimestampTooNew).
	Timestamp, Now int64
	// WebhookID is the id already seen (CodeDuplicate).
	WebhookID string
}

// Sentinels to compare an error with: errors.Is(err, ErrTimestampTooOld)
// holds for any [*Error] of that code.
var (
	ErrMissingHeader       = &Error{Code: CodeMissingHeader}
	ErrInvalidTimestamp    = &Error{Code: CodeInvalidTimestamp}
	ErrTimestampTooOld     = &Error{Code: CodeTimestampTooOld}
	ErrTimestampTooNew     = &Error{Code: CodeTimestampTooNew}
	ErrNoMatchingSignature = &Error{Code: CodeNoMatchingSignature}
	ErrDuplicate           = &Error{Code: CodeDuplicate}
	// ErrInvalidKey matches any [*KeyError].
	ErrInvalidKey = &KeyError{}
)

func (e *Error) Error() string {
	switch e.Code {
	case CodeMissingHeader:
		if e.Header == "" {
			return "a signature header is missing or empty"
		}
		return "the " + e.Header + " header is missing or empty"
	case CodeInvalidTimestamp:
		return "webhook-timestamp is not a whole number of unix seconds"
	case CodeTimestampTooOld:
		return fmt.Sprintf("webhook-timestamp %d is too old (now is %d)", e.Timestamp, e.Now)
	case CodeTimestampTooNew:
		return fmt.Sprintf("webhook-timestamp %d is too far in the future (now is %d)", e.Timestamp, e.Now)
	case CodeNoMatchingSignature:
		return "no signature matched any key"
	case CodeDuplicate:
		if e.WebhookID == "" {
			return "this webhook-id was already seen"
		}
		return "webhook-id " + strconv.Quote(e.WebhookID) + " was already seen"
	}
	return "verification failed: " + e.Code
}

// Is reports whether target is an [*Error] of the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// KeyError is a key string that cannot be used to verify; Reason says why.
// Its code is always CodeInvalidKey.
type KeyError struct {
	Reason string
}

func (e *KeyError) Error() string {
	if e.Reason == "" {
		return "invalid key"
	}
	return "invalid key: " + e.Reason
}

// Is reports whether target is a [*KeyError] (any reason).
func (e *KeyError) Is(target error) bool {
	_, ok := target.(*KeyError)
	return ok
}
