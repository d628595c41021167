package relay_test

// The API beyond the vectors: errors, tolerance, header shapes, dedup.

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	relay "github.com/relay/relay-go"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

var (
	body    = []byte(`{"test": 2432232314}`)
	sentAt  = time.Unix(1614265330, 0)
	headers = relay.HeaderMap{
		"webhook-id":        "msg_p5jXN8AQM9LWM0D4loKWxJek",
		"webhook-timestamp": "1614265330",
		"webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
	}
)

func with(name, value string) relay.HeaderMap {
	h := relay.HeaderMap{}
	for k, v := range headers {
		h[k] = v
	}
	if value == "" {
		delete(h, name)
	} else {
		h[name] = value
	}
	return h
}

func mustVerifier(t *testing.T, keys []string, opts ...relay.Option) *relay.Verifier {
	t.Helper()
	v, err := relay.NewVerifier(keys, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestErrorsAreTypedAndCarryCodes(t *testing.T) {
	v := mustVerifier(t, []string{secret})
	if v.Tolerance() != relay.DefaultTolerance || relay.DefaultTolerance != 300*time.Second {
		t.Fatal(v.Tolerance())
	}
	if err := v.VerifyAt(headers, body, sentAt); err != nil {
		t.Fatal(err)
	}
	var e *relay.Error
	err := v.VerifyAt(with("webhook-id", ""), body, sentAt)
	if !errors.As(err, &e) || e.Code != "missing_header" || e.Header != "webhook-id" || !errors.Is(err, relay.ErrMissingHeader) {
		t.Fatalf("got %#v", err)
	}
	if err.Error() != "the webhook-id header is missing or empty" {
		t.Fatal(err.Error())
	}
	err = v.VerifyAt(headers, body, sentAt.Add(301*time.Second))
	if !errors.As(err, &e) || e.Code != "timestamp_too_old" || e.Timestamp != sentAt.Unix() || e.Now != sentAt.Unix()+301 {
		t.Fatalf("got %#v", err)
	}
	if errors.Is(err, relay.ErrTimestampTooNew) {
		t.Fatal("a too-old error is not a too-new one")
	}
	if err := v.VerifyAt(headers, body, sentAt.Add(-301*time.Second)); !errors.Is(err, relay.ErrTimestampTooNew) {
		t.Fatalf("got %v", err)
	}
	for _, ts := range []string{strings.Repeat("0", 5000) + "1x", strings.Repeat("9", 5000), "-1", "1e9", " 1614265330"} {
		if err := v.VerifyAt(with("webhook-timestamp", ts), body, sentAt); !errors.Is(err, relay.ErrInvalidTimestamp) {
			t.Fatalf("%q: got %v", ts, err)
		}
	}
	// Leading zeros are part of the signed string, not of the value.
	padded := strings.Repeat("0", 5000) + "1614265330"
	if err := v.VerifyAt(with("webhook-timestamp", padded), body, sentAt); !errors.Is(err, relay.ErrNoMatchingSignature) {
		t.Fatalf("got %v", err)
	}
	if err := v.VerifyAt(headers, []byte("{}"), sentAt); !errors.Is(err, relay.ErrNoMatchingSignature) {
		t.Fatalf("got %v", err)
	}
	// The system clock is long past 2021.
	if err := v.Verify(headers, body); !errors.Is(err, relay.ErrTimestampTooOld) {
		t.Fatalf("got %v", err)
	}
	if err := v.VerifyAt(nil, body, sentAt); !errors.Is(err, relay.ErrMissingHeader) {
		t.Fatalf("got %v", err)
	}
}

func TestToleranceIsConfigurable(t *testing.T) {
	v := mustVerifier(t, []string{secret}, relay.WithTolerance(time.Hour))
	if err := v.VerifyAt(headers, body, sentAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := v.VerifyAt(headers, body, sentAt.Add(time.Hour+time.Second)); !errors.Is(err, relay.ErrTimestampTooOld) {
		t.Fatalf("got %v", err)
	}
	strict := mustVerifier(t, []string{secret}, relay.WithTolerance(0))
	if err := strict.VerifyAt(headers, body, sentAt); err != nil {
		t.Fatal(err)
	}
	if err := strict.VerifyAt(headers, body, sentAt.Add(-time.Second)); !errors.Is(err, relay.ErrTimestampTooNew) {
		t.Fatalf("got %v", err)
	}
	if _, err := relay.NewVerifier([]string{secret}, relay.WithTolerance(-time.Second)); err == nil {
		t.Fatal("a negative tolerance is refused")
	}
	// The largest tolerance (about 292 years) reaches back to 1970.
	huge := mustVerifier(t, []string{secret}, relay.WithTolerance(time.Duration(1<<63-1)))
	if err := huge.VerifyAt(with("webhook-timestamp", "0"), body, sentAt); !errors.Is(err, relay.ErrNoMatchingSignature) {
		t.Fatalf("got %v", err)
	}
	// The largest timestamp is only too new.
	if err := v.VerifyAt(with("webhook-timestamp", "9223372036854775807"), body, time.Unix(1<<62, 0)); !errors.Is(err, relay.ErrTimestampTooNew) {
		t.Fatalf("got %v", err)
	}
}

func TestHeaderShapes(t *testing.T) {
	v := mustVerifier(t, []string{secret})
	upper := relay.HeaderMap{}
	h := http.Header{}
	for k, x := range headers {
		upper[strings.ToUpper(k)] = x
		h.Add(k, x)
	}
	for _, hs := range []relay.Headers{upper, h} {
		if err := v.VerifyAt(hs, body, sentAt); err != nil {
			t.Fatal(err)
		}
	}
	h.Set("webhook-signature", "")
	if err := v.VerifyAt(h, body, sentAt); !errors.Is(err, relay.ErrMissingHeader) {
		t.Fatalf("got %v", err)
	}
}

func TestKeyErrors(t *testing.T) {
	if _, err := relay.NewVerifier(nil); !errors.Is(err, relay.ErrInvalidKey) {
		t.Fatalf("got %v", err)
	}
	_, err := relay.NewVerifier([]string{"whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk="})
	var ke *relay.KeyError
	if !errors.As(err, &ke) || !strings.Contains(ke.Reason, "public key") {
		t.Fatalf("got %v", err)
	}
	if errors.Is(err, relay.ErrNoMatchingSignature) {
		t.Fatal("a key error is no verification error")
	}
	if _, err := relay.NewVerifier([]string{secret, "nope"}); !errors.Is(err, relay.ErrInvalidKey) {
		t.Fatalf("got %v", err)
	}
	v := mustVerifier(t, []string{secret, "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4="})
	if s := v.String(); strings.Contains(s, "MfKQ9r8G") || !strings.Contains(s, "whpk_1SiA4o9") {
		t.Fatal(s)
	}
}

func TestVerifyOnceAndMemoryStore(t *testing.T) {
	v := mustVerifier(t, []string{secret})
	store := relay.NewMemorySeenStore()
	if err := v.VerifyOnceAt(headers, []byte("forged"), store, sentAt); !errors.Is(err, relay.ErrNoMatchingSignature) {
		t.Fatalf("got %v", err)
	}
	if store.Len() != 0 {
		t.Fatal("a forged request is not recorded")
	}
	if err := v.VerifyOnceAt(headers, body, store, sentAt); err != nil {
		t.Fatal(err)
	}
	err := v.VerifyOnceAt(headers, body, store, sentAt.Add(time.Second))
	var e *relay.Error
	if !errors.As(err, &e) || e.Code != "duplicate" || e.WebhookID != headers["webhook-id"] || !errors.Is(err, relay.ErrDuplicate) {
		t.Fatalf("got %#v", err)
	}
}

func TestMemoryStoreKeeps96HoursThenForgets(t *testing.T) {
	store := relay.NewMemorySeenStoreWithRetention(time.Minute)
	if store.Retention() != relay.MinRetention || relay.MinRetention != 96*time.Hour {
		t.Fatal(store.Retention())
	}
	t0 := time.Unix(1_700_000_000, 0)
	check := func(id string, at time.Time, want bool) {
		t.Helper()
		got, err := store.CheckAndInsert(id, at)
		if err != nil || got != want {
			t.Fatalf("%s at %v: %v %v", id, at, got, err)
		}
	}
	check("a", t0, true)
	check("a", t0, false)
	check("b", t0.Add(10*time.Second), true)
	check("a", t0.Add(relay.MinRetention), false)
	check("a", t0.Add(relay.MinRetention+time.Second), true)
	check("b", t0.Add(relay.MinRetention+time.Second), false)
	check("c", t0.Add(10*relay.MinRetention), true)
	if store.Len() != 1 {
		t.Fatal(store.Len())
	}
	week := relay.NewMemorySeenStoreWithRetention(7 * 24 * time.Hour)
	if ok, _ := week.CheckAndInsert("x", time.Unix(0, 0)); !ok {
		t.Fatal("first")
	}
	if ok, _ := week.CheckAndInsert("x", time.Unix(7*86400, 0)); ok {
		t.Fatal("kept a week")
	}
}

func TestMemoryStoreOneWinnerAcrossGoroutines(t *testing.T) {
	store := relay.NewMemorySeenStore()
	var wins int
	var mu sync.Mutex
	var wg sync.WaitGroup
	now := time.Now()
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _ := store.CheckAndInsert("m", now); ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatal(wins)
	}
}

type table struct{ rows map[string]bool }

func (t *table) CheckAndInsert(id string, _ time.Time) (bool, error) {
	if t.rows[id] {
		return false, nil
	}
	t.rows[id] = true
	return true, nil
}

type broken struct{}

func (broken) CheckAndInsert(string, time.Time) (bool, error) {
	return false, errors.New("the database is down")
}

func TestCustomStores(t *testing.T) {
	v := mustVerifier(t, []string{secret})
	tbl := &table{rows: map[string]bool{}}
	if err := v.VerifyOnceAt(headers, body, tbl, sentAt); err != nil {
		t.Fatal(err)
	}
	if err := v.VerifyOnceAt(headers, body, tbl, sentAt); !errors.Is(err, relay.ErrDuplicate) {
		t.Fatalf("got %v", err)
	}
	err := v.VerifyOnceAt(headers, body, broken{}, sentAt)
	var e *relay.Error
	if err == nil || errors.As(err, &e) || err.Error() != "the database is down" {
		t.Fatalf("a store's error is returned as it is: %v", err)
	}
}
