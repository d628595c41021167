package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ProblemError is an error answer of Relay's API (RFC 9457 problem+json).
// Compare its kind with errors.Is(err, relay.ErrValidation) and the other
// Err… sentinels, or read its fields with errors.As.
type ProblemError struct {
	// Status is the HTTP status.
	Status int
	// Code is Relay's stable, machine-readable code (`schema_violation`,
	// `unknown_event_type`, …); "http_<status>" when the body has none.
	Code string
	// Title and Detail are for people.
	Title, Detail string
	// Errors are the fields at fault (empty when none).
	Errors []FieldError
	// RequestID is the request's id: the X-Request-Id Relay answered with,
	// else the one the client sent with that attempt (req_<uuid>).
	RequestID string
	// RetryAfter is the answer's Retry-After, when it had one.
	RetryAfter *time.Duration
	// Problem is the whole body, decoded (nil when it was no JSON object).
	Problem map[string]any
}

func (e *ProblemError) Error() string {
	text := e.Detail
	if text == "" {
		text = e.Title
	}
	return fmt.Sprintf("relay: %d %s: %s (request %s)", e.Status, e.Code, text, e.RequestID)
}

// Is makes errors.Is(err, ErrValidation) (and the other kinds) hold for a
// *ProblemError of that kind's statuses.
func (e *ProblemError) Is(target error) bool {
	k, ok := target.(*problemKind)
	if !ok {
		return false
	}
	for _, s := range k.statuses {
		if s == e.Status {
			return true
		}
	}
	return false
}

type problemKind struct {
	name     string
	statuses []int
}

func (k *problemKind) Error() string { return "relay: " + k.name }

// The kinds of [*ProblemError], by status, for errors.Is.
var (
	// ErrValidation: 422, the request was understood but refused; see Code and Errors.
	ErrValidation error = &problemKind{"validation error", []int{http.StatusUnprocessableEntity}}
	// ErrNotFound: 404, no such object (in this key's tenant and environment).
	ErrNotFound error = &problemKind{"not found", []int{http.StatusNotFound}}
	// ErrAuthentication: 401 or 403, the key is missing, wrong, revoked or not allowed this.
	ErrAuthentication error = &problemKind{"authentication error", []int{http.StatusUnauthorized, http.StatusForbidden}}
	// ErrConflict: 409, the object changed or already exists.
	ErrConflict error = &problemKind{"conflict", []int{http.StatusConflict}}
	// ErrRateLimited: 429 or 503 still answered after the last retry.
	ErrRateLimited error = &problemKind{"rate limited", []int{http.StatusTooManyRequests, http.StatusServiceUnavailable}}
)

// newProblemError reads an error answer's body; anything but a JSON object
// still makes an error with the status.
func newProblemError(status int, body []byte, requestID string, retryAfter *time.Duration) *ProblemError {
	var problem map[string]any
	if json.Unmarshal(body, &problem) != nil {
		problem = nil
	}
	str := func(k string) string {
		s, _ := problem[k].(string)
		return s
	}
	e := &ProblemError{
		Status:     status,
		Code:       str("code"),
		Title:      str("title"),
		Detail:     str("detail"),
		Errors:     []FieldError{},
		RequestID:  requestID,
		RetryAfter: retryAfter,
		Problem:    problem,
	}
	if e.Code == "" {
		e.Code = fmt.Sprintf("http_%d", status)
	}
	list, _ := problem["errors"].([]any)
	for _, item := range list {
		if f, ok := item.(map[string]any); ok {
			field, _ := f["field"].(string)
			message, _ := f["message"].(string)
			e.Errors = append(e.Errors, FieldError{Field: field, Message: message})
		}
	}
	return e
}

// ConnectionError is a request that got no answer: the connection failed
// or the attempt timed out (after the retries, for requests safe to
// repeat). Err is the last attempt's error.
type ConnectionError struct {
	RequestID string
	Err       error
}

func (e *ConnectionError) Error() string {
	return fmt.Sprintf("relay: no answer (request %s): %v", e.RequestID, e.Err)
}

func (e *ConnectionError) Unwrap() error { return e.Err }

// errNoBody is a 2xx answer that should have had a JSON body and had none.
var errNoBody = errors.New("relay: the answer had no body")
