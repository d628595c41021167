package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Request is one call of Relay's API, as the generated operations build
// it; Client.Send sends it with the client's retries and typed errors.
type Request struct {
	Method string
	// Path is the escaped path, from the root: "/v1/consumers/con_1".
	Path   string
	Query  url.Values
	Header http.Header
	// Body is encoded as JSON; nil sends none.
	Body any
	// Safe says the request may be repeated after a lost connection or a
	// timeout: reads, PUT, DELETE, and publishes (their event id makes them
	// idempotent). A 429 or 503 is retried whatever Safe says.
	Safe bool
}

// CallOption changes one call.
type CallOption func(*Request)

// SafeToRetry marks a call as safe to repeat after a lost connection or a
// timeout (an idempotent POST or PATCH).
func SafeToRetry() CallOption {
	return func(r *Request) { r.Safe = true }
}

// WithHeader adds a header to one call.
func WithHeader(name, value string) CallOption {
	return func(r *Request) {
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Header.Set(name, value)
	}
}

// newID is prefix + a random UUID (version 4) in hex, as Relay's other
// SDKs make them: the event ids a publish chooses, the request ids.
func newID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("relay: no randomness: " + err.Error())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return prefix + hex.EncodeToString(b[:])
}

// NewEventID is an idempotency key for a publish: the event's id (evt_<uuid>).
func NewEventID() string { return newID("evt_") }

// ParseRetryAfter reads a Retry-After header as a wait: delta-seconds or
// an HTTP date (counted from now). ok is false for anything else.
func ParseRetryAfter(value string, now time.Time) (wait time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(value, 10, 32); err == nil {
		return time.Duration(n) * time.Second, true
	}
	when, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	if d := when.Sub(now); d > 0 {
		return d, true
	}
	return 0, true
}

// backoff is full jitter: uniform in [0, min(cap, base·2^attempt)].
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.backoffCap
	if attempt < 32 {
		if d := c.backoffBase << uint(attempt); d > 0 && d < ceiling {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(c.rand.Int63n(int64(ceiling) + 1))
}

// sleepContext waits d, or until ctx is done.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Send sends req and decodes a 2xx answer's JSON into out (unless out is
// nil). Retried: 429 and 503 (Relay refused before doing anything) on any
// request, waiting Retry-After when given (up to the client's maximum
// wait; longer, the error is returned at once), else a capped exponential
// backoff with full jitter; a lost connection or a timeout only when
// req.Safe. Each attempt carries a new X-Request-Id (req_<uuid>) and has
// the client's timeout. An error answer is a *ProblemError, no answer a
// *ConnectionError, a cancelled ctx its error.
func (c *Client) Send(ctx context.Context, req *Request, out any, opts ...CallOption) error {
	for _, o := range opts {
		o(req)
	}
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = json.Marshal(req.Body); err != nil {
			return fmt.Errorf("relay: encoding the request body: %w", err)
		}
	}
	target := c.baseURL + req.Path
	if len(req.Query) > 0 {
		target += "?" + req.Query.Encode()
	}
	for attempt := 0; ; attempt++ {
		requestID := newID("req_")
		status, header, answer, err := c.attempt(ctx, req, target, body, requestID)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if req.Safe && attempt < c.maxRetries {
				if err := c.sleep(ctx, c.backoff(attempt)); err != nil {
					return err
				}
				continue
			}
			return &ConnectionError{RequestID: requestID, Err: err}
		}
		if status >= 200 && status < 300 {
			if out == nil {
				return nil
			}
			if len(bytes.TrimSpace(answer)) == 0 {
				return errNoBody
			}
			dec := json.NewDecoder(bytes.NewReader(answer))
			dec.UseNumber()
			if err := dec.Decode(out); err != nil {
				return fmt.Errorf("relay: decoding the answer to %s %s (request %s): %w", req.Method, req.Path, requestID, err)
			}
			return nil
		}
		if answered := header.Get("X-Request-Id"); answered != "" {
			requestID = answered
		}
		var retryAfter *time.Duration
		if wait, ok := ParseRetryAfter(header.Get("Retry-After"), c.now()); ok {
			retryAfter = &wait
		}
		if (status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable) && attempt < c.maxRetries {
			wait := c.backoff(attempt)
			if retryAfter != nil {
				wait = *retryAfter
			}
			if wait <= c.maxRetryWait {
				if err := c.sleep(ctx, wait); err != nil {
					return err
				}
				continue
			}
		}
		return newProblemError(status, answer, requestID, retryAfter)
	}
}

// attempt is one HTTP exchange under the client's timeout: the status,
// headers and whole body, or the error that left no answer.
func (c *Client) attempt(ctx context.Context, req *Request, target string, body []byte, requestID string) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	r, err := http.NewRequestWithContext(ctx, req.Method, target, reader)
	if err != nil {
		return 0, nil, nil, err
	}
	for name, values := range req.Header {
		r.Header[name] = values
	}
	r.Header.Set("Authorization", "Bearer "+string(c.apiKey))
	r.Header.Set("User-Agent", c.userAgent)
	r.Header.Set("Accept", "application/json")
	r.Header.Set("X-Request-Id", requestID)
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(r)
	if err != nil {
		return 0, nil, nil, scrub(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, nil, nil, scrub(err)
	}
	return resp.StatusCode, resp.Header, answer, nil
}

// maxAnswer bounds the body read from one answer (64 MiB).
const maxAnswer = 64 << 20

// scrub keeps an *url.Error's cause and operation but not its URL, which
// may carry query values: the error says what failed without echoing the
// request.
func scrub(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return fmt.Errorf("%s: %w", u.Op, u.Err)
	}
	return err
}

// seededRand is the backoff's jitter source.
func seededRand() *mrand.Rand {
	var b [8]byte
	_, _ = rand.Read(b[:])
	var seed int64
	for _, x := range b {
		seed = seed<<8 | int64(x)
	}
	return mrand.New(mrand.NewSource(seed))
}
