package relay_test

// The client's hand-written layer against a local fake of the API
// (httptest): retries and Retry-After, the publish's id kept across
// retries, typed errors, pagination, timeouts, the User-Agent, and the key
// never shown. Waits are recorded by an injected sleep, never slept.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	relay "github.com/relay/relay-go"
)

const testKey = "rk_live_s3cr3t_key_never_shown_4f1d"

type seen struct {
	method, path, query, body string
	header                    http.Header
}

// fake answers each request with the next of its handlers (the last one
// again when they run out) and records what it received.
type fake struct {
	t        *testing.T
	mu       sync.Mutex
	seen     []seen
	handlers []http.HandlerFunc
	server   *httptest.Server
	waits    []time.Duration
}

func newFake(t *testing.T, handlers ...http.HandlerFunc) *fake {
	f := &fake{t: t, handlers: handlers}
	f.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.seen = append(f.seen, seen{r.Method, r.URL.Path, r.URL.RawQuery, string(body), r.Header.Clone()})
		h := f.handlers[len(f.handlers)-1]
		if n := len(f.seen) - 1; n < len(f.handlers) {
			h = f.handlers[n]
		}
		f.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(f.server.Close)
	return f
}

// got is what the fake received so far.
func (f *fake) got() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

func (f *fake) client(opts ...relay.ClientOption) *relay.Client {
	base := []relay.ClientOption{
		relay.WithBaseURL(f.server.URL + "/"),
		relay.WithSleep(func(ctx context.Context, d time.Duration) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.waits = append(f.waits, d)
			return ctx.Err()
		}),
	}
	return relay.NewClient(testKey, append(base, opts...)...)
}

func answer(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		if strings.HasPrefix(body, "{") && status >= 400 {
			w.Header().Set("Content-Type", "application/problem+json")
		} else if body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

const consumerJSON = `{"id":"con_1","external_id":"acme","source":"/relay","environment":"live",` +
	`"created_at":"2026-03-02T09:15:27.412Z","updated_at":"2026-03-02T09:15:27.412Z"}`

const publishedJSON = `{"id":"%s","type":"order.paid","type_version":1,"environment":"live","data":{"n":1},` +
	`"time":"2026-03-02T09:15:27.412Z","created_at":"2026-03-02T09:15:27.412Z","traceparent":"00-x","messages_created":1,"duplicate":false}`

var ctx = context.Background()

func TestRetriesHonourRetryAfterThenSucceed(t *testing.T) {
	f := newFake(t,
		answer(429, `{"code":"rate_limited","title":"Too Many Requests","status":429,"detail":"slow down","type":"urn:relay:problem:rate_limited"}`, "Retry-After", "2"),
		answer(503, `{"code":"not_ready"}`, "Retry-After", "Thu, 01 Jan 2026 00:00:07 GMT"),
		answer(200, consumerJSON),
	)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := f.client(relay.WithClock(func() time.Time { return now }))
	got, err := c.Consumers.Get(ctx, "con_1")
	if err != nil || got.ID != "con_1" || got.ExternalID != "acme" {
		t.Fatalf("%+v %v", got, err)
	}
	if want := []time.Duration{2 * time.Second, 7 * time.Second}; fmt.Sprint(f.waits) != fmt.Sprint(want) {
		t.Fatalf("waits %v, want %v", f.waits, want)
	}
	// Each attempt has its own request id.
	if a, b := f.got()[0].header.Get("X-Request-Id"), f.got()[1].header.Get("X-Request-Id"); a == b || !strings.HasPrefix(a, "req_") {
		t.Fatalf("request ids %s %s", a, b)
	}
}

func TestWithoutRetryAfterTheBackoffIsCappedFullJitter(t *testing.T) {
	f := newFake(t, answer(503, `{"code":"overloaded"}`))
	c := f.client(relay.WithMaxRetries(5), relay.WithBackoff(100*time.Millisecond, 300*time.Millisecond))
	_, err := c.Consumers.Get(ctx, "con_1")
	if !errors.Is(err, relay.ErrRateLimited) || len(f.got()) != 6 {
		t.Fatalf("%v after %d requests", err, len(f.got()))
	}
	ceilings := []time.Duration{100, 200, 300, 300, 300}
	for i, w := range f.waits {
		if w < 0 || w > ceilings[i]*time.Millisecond {
			t.Fatalf("wait %d: %v over %v", i, w, ceilings[i]*time.Millisecond)
		}
	}
	if len(f.waits) != 5 {
		t.Fatalf("waits %v", f.waits)
	}
}

func TestARetryAfterBeyondTheLimitIsReturnedAtOnce(t *testing.T) {
	f := newFake(t, answer(429, `{"code":"rate_limited"}`, "Retry-After", "3600"))
	_, err := f.client().Consumers.Get(ctx, "con_1")
	var p *relay.ProblemError
	if !errors.As(err, &p) || p.RetryAfter == nil || *p.RetryAfter != time.Hour || len(f.got()) != 1 || len(f.waits) != 0 {
		t.Fatalf("%v, %d requests, waits %v", err, len(f.got()), f.waits)
	}
}

func TestPublishChoosesAnIDAndKeepsItAcrossRetries(t *testing.T) {
	f := newFake(t,
		answer(503, `{"code":"not_ready"}`, "Retry-After", "0"),
		func(w http.ResponseWriter, r *http.Request) {
			var body struct{ ID string }
			json.NewDecoder(r.Body).Decode(&body)
			answer(202, fmt.Sprintf(publishedJSON, body.ID))(w, r)
		},
	)
	c := f.client()
	event := &relay.PublishEvent{Type: "order.paid", Data: map[string]any{"n": 1}}
	got, err := c.Events.Publish(ctx, event)
	if err != nil {
		t.Fatal(err)
	}
	var first, second struct {
		ID   string
		Type string
		Data map[string]any
	}
	json.Unmarshal([]byte(f.got()[0].body), &first)
	json.Unmarshal([]byte(f.got()[1].body), &second)
	if !strings.HasPrefix(first.ID, "evt_") || len(first.ID) != 36 || first.ID != second.ID || got.ID != first.ID {
		t.Fatalf("ids %q %q, answered %q", first.ID, second.ID, got.ID)
	}
	// The id is set on the caller's event: publishing it again repeats it.
	if event.ID == nil || *event.ID != first.ID || got.MessagesCreated != 1 || got.Data["n"] != json.Number("1") {
		t.Fatalf("%+v", got)
	}
	// Two publishes without an id get two ids.
	other := &relay.PublishEvent{Type: "order.paid", Data: map[string]any{}}
	c.Events.Publish(ctx, other)
	if *other.ID == first.ID {
		t.Fatal("the same id for two events")
	}
	// Your own id is sent as it is.
	mine := &relay.PublishEvent{ID: relay.Ptr("order-1042-paid"), Type: "order.paid", Data: map[string]any{}}
	c.Events.Publish(ctx, mine)
	if !strings.Contains(f.got()[len(f.got())-1].body, `"id":"order-1042-paid"`) {
		t.Fatal(f.got()[len(f.got())-1].body)
	}
}

// dropConnection closes the connection without answering.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func TestALostConnectionIsRetriedOnlyWhenSafe(t *testing.T) {
	// A publish is safe (its id): retried, and the same id sent again.
	f := newFake(t, dropConnection, func(w http.ResponseWriter, r *http.Request) {
		answer(202, fmt.Sprintf(publishedJSON, "evt_x"))(w, r)
	})
	if _, err := f.client().Events.Publish(ctx, &relay.PublishEvent{Type: "t", Data: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if len(f.got()) != 2 || f.got()[0].body != f.got()[1].body {
		t.Fatalf("%d requests: %q", len(f.got()), f.got())
	}
	// Creating a consumer is not: one attempt, a ConnectionError.
	g := newFake(t, dropConnection)
	_, err := g.client().Consumers.Create(ctx, &relay.CreateConsumer{ExternalID: "acme"})
	var ce *relay.ConnectionError
	if !errors.As(err, &ce) || !strings.HasPrefix(ce.RequestID, "req_") || len(g.got()) != 1 {
		t.Fatalf("%v after %d requests", err, len(g.got()))
	}
	// Unless the caller says it is.
	h := newFake(t, dropConnection, answer(201, consumerJSON))
	if _, err := h.client().API.ConsumersCreate(ctx, &relay.CreateConsumer{ExternalID: "acme"}, relay.SafeToRetry()); err != nil || len(h.got()) != 2 {
		t.Fatalf("%v after %d requests", err, len(h.got()))
	}
}

func TestEachAttemptHasTheTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	_, err := f.client(relay.WithTimeout(50*time.Millisecond), relay.WithMaxRetries(1)).Consumers.Get(ctx, "con_1")
	var ce *relay.ConnectionError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) || len(f.waits) != 1 {
		t.Fatalf("%v, waits %v", err, f.waits)
	}
}

func TestErrorAnswersAreTypedProblems(t *testing.T) {
	problem := `{"type":"urn:relay:problem:schema_violation","title":"Unprocessable Content","status":422,` +
		`"detail":"the payload does not satisfy the schema","code":"schema_violation",` +
		`"errors":[{"field":"/data","message":"\"total\" is a required property"}]}`
	f := newFake(t, answer(422, problem, "X-Request-Id", "req_from_relay"))
	_, err := f.client().Events.Publish(ctx, &relay.PublishEvent{Type: "order.paid", Data: map[string]any{}})
	var p *relay.ProblemError
	if !errors.As(err, &p) || !errors.Is(err, relay.ErrValidation) || errors.Is(err, relay.ErrNotFound) {
		t.Fatalf("%#v", err)
	}
	if p.Status != 422 || p.Code != "schema_violation" || p.RequestID != "req_from_relay" ||
		len(p.Errors) != 1 || p.Errors[0].Field != "/data" || p.Detail == "" || p.Problem["title"] != "Unprocessable Content" {
		t.Fatalf("%+v", p)
	}
	if want := "relay: 422 schema_violation: the payload does not satisfy the schema (request req_from_relay)"; p.Error() != want {
		t.Fatal(p.Error())
	}
	// Without Relay's header, the id the client sent; without a body, http_<status>.
	for status, kind := range map[int]error{404: relay.ErrNotFound, 401: relay.ErrAuthentication, 403: relay.ErrAuthentication, 409: relay.ErrConflict, 500: nil} {
		g := newFake(t, answer(status, "<html>oops</html>"))
		err := g.client().Consumers.Delete(ctx, "con_1")
		if !errors.As(err, &p) || p.Code != fmt.Sprintf("http_%d", status) || p.RequestID != g.got()[0].header.Get("X-Request-Id") ||
			len(p.Errors) != 0 || (kind != nil && !errors.Is(err, kind)) || (kind == nil && errors.Is(err, relay.ErrValidation)) {
			t.Fatalf("%d: %#v", status, err)
		}
	}
}

func TestListsAreIteratorsOverPages(t *testing.T) {
	page := func(ids []string, next string) http.HandlerFunc {
		items := make([]string, len(ids))
		for i, id := range ids {
			items[i] = strings.Replace(consumerJSON, "con_1", id, 1)
		}
		n := "null"
		if next != "" {
			n = `"` + next + `"`
		}
		return answer(200, `{"data":[`+strings.Join(items, ",")+`],"next_after":`+n+`}`)
	}
	f := newFake(t, page([]string{"con_1", "con_2"}, "con_2"), page([]string{"con_3"}, "con_3"), page(nil, ""))
	it := f.client().Consumers.List(ctx, &relay.ConsumersListParams{Limit: relay.Ptr(2)})
	var ids []string
	for it.Next() {
		ids = append(ids, it.Item().ID)
	}
	if it.Err() != nil || strings.Join(ids, " ") != "con_1 con_2 con_3" || len(f.got()) != 3 {
		t.Fatalf("%v %v after %d requests", ids, it.Err(), len(f.got()))
	}
	if q := []string{f.got()[0].query, f.got()[1].query, f.got()[2].query}; q[0] != "limit=2" || q[1] != "after=con_2&limit=2" || q[2] != "after=con_3&limit=2" {
		t.Fatalf("queries %q", q)
	}
	// A filtered list reads a bounded span per page: a page may be empty
	// and still name the next; a cursor that does not move on ends it.
	ef := newFake(t, page(nil, "con_5"), page([]string{"con_6"}, "con_6"), page(nil, "con_6"))
	got5, err5 := ef.client().Consumers.List(ctx, nil).All()
	if err5 != nil || len(got5) != 1 || got5[0].ID != "con_6" || len(ef.got()) != 3 || ef.got()[1].query != "after=con_5" {
		t.Fatalf("%v %v %d", got5, err5, len(ef.got()))
	}
	// The last page's null next_after ends it without another request.
	g := newFake(t, page([]string{"con_1"}, ""))
	all, err := g.client().Consumers.List(ctx, nil).All()
	if err != nil || len(all) != 1 || len(g.got()) != 1 || g.got()[0].query != "" {
		t.Fatalf("%v %v %d", all, err, len(g.got()))
	}
	// An error stops it and is kept.
	h := newFake(t, page([]string{"con_1"}, "con_1"), answer(400, `{"code":"invalid_query"}`))
	it = h.client().Consumers.List(ctx, nil)
	n := 0
	for it.Next() {
		n++
	}
	if n != 1 || !strings.Contains(fmt.Sprint(it.Err()), "invalid_query") {
		t.Fatalf("%d items, %v", n, it.Err())
	}
	// Filters are query parameters: enums and times too.
	k := newFake(t, page(nil, ""))
	since := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	k.client().Messages.List(ctx, &relay.MessagesListParams{State: relay.Ptr(relay.MessageStateExhausted), Since: &since, EndpointID: relay.Ptr("ep 1")}).All()
	if k.got()[0].query != "endpoint_id=ep+1&since=2026-03-01T08%3A00%3A00Z&state=exhausted" {
		t.Fatal(k.got()[0].query)
	}
}

func TestRequestsCarryTheKeyTheUserAgentAndJSON(t *testing.T) {
	f := newFake(t, answer(200, consumerJSON))
	c := f.client(relay.WithUserAgent("shop/1.0"))
	if _, err := c.Consumers.Update(ctx, "con/1", &relay.UpdateConsumer{Name: relay.Ptr("Acme")}); err != nil {
		t.Fatal(err)
	}
	s := f.got()[0]
	if s.method != "PATCH" || s.path != "/v1/consumers/con/1" || s.body != `{"name":"Acme"}` ||
		s.header.Get("Authorization") != "Bearer "+testKey || s.header.Get("Content-Type") != "application/json" ||
		s.header.Get("User-Agent") != "shop/1.0 relay-sdk-go/"+relay.Version {
		t.Fatalf("%+v", s)
	}
	if relay.UserAgent != "relay-sdk-go/"+relay.Version {
		t.Fatal(relay.UserAgent)
	}
}

func TestTheKeyIsNeverShown(t *testing.T) {
	c := relay.NewClient(testKey, relay.WithBaseURL("http://127.0.0.1:1"), relay.WithMaxRetries(0))
	for _, shown := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%+v", *c.Consumers), fmt.Sprintf("%#v", c.API)} {
		if strings.Contains(shown, "s3cr3t") {
			t.Fatalf("the key in %q", shown)
		}
	}
	// Neither in a connection error (nothing listens on port 1)...
	_, err := c.Consumers.Get(ctx, "con_1")
	var ce *relay.ConnectionError
	if !errors.As(err, &ce) || strings.Contains(fmt.Sprintf("%v %+v %#v", err, err, ce), "s3cr3t") {
		t.Fatalf("%v", err)
	}
	// ...nor in a problem, even one that quotes the request.
	f := newFake(t, answer(401, `{"code":"invalid_api_key","detail":"bad key"}`))
	_, err = f.client().Consumers.Get(ctx, "con_1")
	if !errors.Is(err, relay.ErrAuthentication) || strings.Contains(fmt.Sprintf("%v %+v", err, err), "s3cr3t") {
		t.Fatalf("%v", err)
	}
}

func TestACancelledContextStopsTheRetries(t *testing.T) {
	f := newFake(t, answer(503, `{"code":"not_ready"}`))
	cctx, cancel := context.WithCancel(ctx)
	c := f.client(relay.WithSleep(func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}))
	if _, err := c.Consumers.Get(cctx, "con_1"); !errors.Is(err, context.Canceled) || len(f.got()) != 1 {
		t.Fatalf("%v after %d requests", err, len(f.got()))
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for value, want := range map[string]time.Duration{
		"0": 0, " 12 ": 12 * time.Second, "Thu, 01 Jan 2026 00:00:30 GMT": 30 * time.Second,
		"Wed, 31 Dec 2025 23:00:00 GMT": 0, "-1": -1, "soon": -1, "": -1, "1.5": -1,
	} {
		got, ok := relay.ParseRetryAfter(value, now)
		if (want < 0 && ok) || (want >= 0 && (!ok || got != want)) {
			t.Errorf("%q: %v %v", value, got, ok)
		}
	}
}

func TestDestinationsAreATaggedUnion(t *testing.T) {
	raw, err := json.Marshal(relay.Destination{HTTPS: &relay.HttpsDestination{URL: "https://hooks.example/relay"}})
	if err != nil || string(raw) != `{"kind":"https","url":"https://hooks.example/relay"}` {
		t.Fatalf("%s %v", raw, err)
	}
	if _, err := json.Marshal(relay.Destination{}); err == nil {
		t.Fatal("an empty destination encoded")
	}
	var d relay.Destination
	if err := json.Unmarshal([]byte(`{"kind":"sqs","queue_url":"https://sqs.eu-west-1.amazonaws.com/1/q","region":"eu-west-1"}`), &d); err != nil || d.SQS == nil || d.HTTPS != nil {
		t.Fatalf("%+v %v", d, err)
	}
	// A kind this version does not know is kept as it came.
	future := `{"kind":"pigeon","loft":"north"}`
	if err := json.Unmarshal([]byte(future), &d); err != nil || d.SQS != nil || string(d.Unknown) != future {
		t.Fatalf("%+v %v", d, err)
	}
	if again, _ := json.Marshal(d); string(again) != future {
		t.Fatal(string(again))
	}
}
