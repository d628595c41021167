package relay

import (
	"context"
	"fmt"
	mrand "math/rand"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultBaseURL is where a client sends requests without WithBaseURL.
const DefaultBaseURL = "http://127.0.0.1:8080"

// UserAgent names this SDK and its version in every request.
const UserAgent = "relay-sdk-go/" + Version

// apiKey is a tenant API key; it prints as [redacted].
type apiKey string

func (apiKey) String() string   { return "[redacted]" }
func (apiKey) GoString() string { return "[redacted]" }

// Client is a client of Relay's API with one tenant API key (rk_live_… or
// rk_test_…). Its resources (EventTypes, Consumers, Endpoints, Events,
// Messages, PortalTokens) cover what most programs need; API has every
// tenant-key operation of the API, generated from its OpenAPI document.
// A Client is safe for concurrent use.
type Client struct {
	EventTypes   *EventTypes
	Consumers    *Consumers
	Endpoints    *Endpoints
	Events       *Events
	Messages     *Messages
	PortalTokens *PortalTokens
	// API has an operation per tenant-key endpoint (generated).
	API *API

	apiKey       apiKey
	baseURL      string
	http         *http.Client
	userAgent    string
	timeout      time.Duration
	maxRetries   int
	backoffBase  time.Duration
	backoffCap   time.Duration
	maxRetryWait time.Duration
	sleep        func(context.Context, time.Duration) error
	now          func() time.Time

	mu   sync.Mutex
	rand *mrand.Rand
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithBaseURL is Relay's address ("https://relay.example"); default DefaultBaseURL.
func WithBaseURL(u string) ClientOption {
	return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithTimeout bounds each attempt (default 30 s).
func WithTimeout(d time.Duration) ClientOption { return func(c *Client) { c.timeout = d } }

// WithMaxRetries is how many times a request is retried (default 3).
func WithMaxRetries(n int) ClientOption { return func(c *Client) { c.maxRetries = n } }

// WithBackoff sets the retries' backoff: full jitter under min(cap,
// base·2^attempt) (defaults 0.5 s and 30 s).
func WithBackoff(base, cap time.Duration) ClientOption {
	return func(c *Client) { c.backoffBase, c.backoffCap = base, cap }
}

// WithMaxRetryWait is the longest Retry-After the client waits (default
// 60 s); a longer one returns the error at once.
func WithMaxRetryWait(d time.Duration) ClientOption { return func(c *Client) { c.maxRetryWait = d } }

// WithHTTPClient sends through this http.Client (its transport, proxies,
// TLS settings); the client's own timeout still bounds each attempt.
func WithHTTPClient(h *http.Client) ClientOption { return func(c *Client) { c.http = h } }

// WithUserAgent puts a product of yours before the SDK's in the
// User-Agent ("myapp/1.2 relay-sdk-go/0.1.0").
func WithUserAgent(product string) ClientOption {
	return func(c *Client) { c.userAgent = strings.TrimSpace(product + " " + UserAgent) }
}

// WithSleep replaces how the client waits between retries (tests pass one
// that records the waits instead of waiting). It returns ctx's error when
// ctx is done first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) ClientOption {
	return func(c *Client) { c.sleep = sleep }
}

// WithClock replaces the clock Retry-After's HTTP dates are read against.
func WithClock(now func() time.Time) ClientOption { return func(c *Client) { c.now = now } }

// NewClient makes a client with a tenant API key:
//
//	client := relay.NewClient(os.Getenv("RELAY_API_KEY"), relay.WithBaseURL("https://relay.example"))
func NewClient(key string, opts ...ClientOption) *Client {
	c := &Client{
		apiKey:       apiKey(key),
		baseURL:      DefaultBaseURL,
		http:         http.DefaultClient,
		userAgent:    UserAgent,
		timeout:      30 * time.Second,
		maxRetries:   3,
		backoffBase:  500 * time.Millisecond,
		backoffCap:   30 * time.Second,
		maxRetryWait: 60 * time.Second,
		sleep:        sleepContext,
		now:          time.Now,
		rand:         seededRand(),
	}
	for _, o := range opts {
		o(c)
	}
	c.API = &API{c: c}
	c.EventTypes = &EventTypes{c.API}
	c.Consumers = &Consumers{c.API}
	c.Endpoints = &Endpoints{c.API}
	c.Events = &Events{c.API}
	c.Messages = &Messages{c.API}
	c.PortalTokens = &PortalTokens{c.API}
	return c
}

// String names the client's address, never its key.
func (c *Client) String() string {
	return fmt.Sprintf("relay.Client{baseURL: %q, apiKey: [redacted]}", c.baseURL)
}

// GoString is String: %#v shows no key either.
func (c *Client) GoString() string { return c.String() }

// Ptr is a pointer to v, for the optional fields of requests:
// Name: relay.Ptr("Acme Shop").
func Ptr[T any](v T) *T { return &v }
