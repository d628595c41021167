package main

// The README's net/http example (this directory's main.go, shown verbatim in
// README.md) verifies real signed requests over the raw body.

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

type pair struct {
	SigningKey      string `json:"signing_key"`
	VerificationKey string `json:"verification_key"`
}

func TestTheExampleVerifiesRejectsAndDeduplicates(t *testing.T) {
	raw, err := os.ReadFile("../../../vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		SigningKeys map[string]pair `json:"signing_keys"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(vectors.SigningKeys["ed_a"].SigningKey, "whsk_"))
	if err != nil {
		t.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(seed[:32])
	sign := func(id string, body []byte, ts time.Time) http.Header {
		stamp := strconv.FormatInt(ts.Unix(), 10)
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", stamp)
		h.Set("webhook-signature", "v1a,"+base64.StdEncoding.EncodeToString(ed25519.Sign(key, append([]byte(id+"."+stamp+"."), body...))))
		return h
	}

	handler, err := newHandler([]string{vectors.SigningKeys["ed_a"].VerificationKey, vectors.SigningKeys["ed_b"].VerificationKey})
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(handler)
	defer server.Close()
	var logged bytes.Buffer
	log.SetOutput(&logged)
	defer log.SetOutput(os.Stderr)
	log.SetFlags(0)
	post := func(body []byte, h http.Header, contentType string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, server.URL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = h.Clone()
		req.Header.Set("content-type", contentType)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		text, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(text)
	}
	const ce = "application/cloudevents+json"
	body := []byte(`{"specversion":"1.0","id":"evt_1","type":"order.paid"}`)
	good := sign("evt_1", body, time.Now())
	if code, text := post(bytes.Replace(body, []byte("evt_1"), []byte("evt_2"), 1), good, ce); code != 401 || text != "no_matching_signature" {
		t.Fatal(code, text)
	}
	unsigned := good.Clone()
	unsigned.Del("webhook-signature")
	if code, text := post(body, unsigned, ce); code != 401 || text != "missing_header" {
		t.Fatal(code, text)
	}
	if code, _ := post(body, good, ce); code != 204 {
		t.Fatal(code)
	}
	if logged.String() != "order.paid evt_1\n" {
		t.Fatalf("logged %q", logged.String())
	}
	if code, _ := post(body, good, ce); code != 200 { // a replay: acknowledged, not processed
		t.Fatal(code)
	}
	if logged.String() != "order.paid evt_1\n" {
		t.Fatalf("logged %q", logged.String())
	}
	stale := sign("evt_3", body, time.Unix(1_600_000_000, 0))
	if code, text := post(body, stale, ce); code != 401 || text != "timestamp_too_old" {
		t.Fatal(code, text)
	}
	// Any content type reaches the verifier as raw bytes.
	if code, _ := post(body, sign("evt_4", body, time.Now()), "text/plain"); code != 204 {
		t.Fatal(code)
	}
	if _, err := newHandler(nil); err == nil {
		t.Fatal("no keys: an error")
	}
}
