package main

// The README's quickstart (this directory's main.go, shown verbatim in
// README.md) run end to end against a real `relay serve`: the event type,
// consumer and endpoint are made, the publish is delivered to an HTTPS
// receiver and verified with the quickstart's verifier, the message is
// listed, a portal token minted, and a 422 surfaces as a typed error.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	relay "github.com/relay/relay-go"
)

func TestTheReadmeShowsTheQuickstartVerbatim(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	quickstart, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("```go\n"+string(quickstart)+"```")) {
		t.Fatal("README.md must show examples/quickstart/main.go verbatim")
	}
}

func TestTheQuickstartEndToEnd(t *testing.T) {
	bin := relayBinary(t)
	receiver := newReceiver(t)
	server := startRelay(t, bin, receiver)
	key := server.apiKey(t)
	t.Setenv("RELAY_API_KEY", key)
	t.Setenv("RELAY_URL", server.url)
	t.Setenv("WEBHOOK_URL", receiver.url)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var out bytes.Buffer
	verifier, err := quickstart(ctx, &out)
	if err != nil {
		t.Fatalf("the quickstart failed: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("printed %q", lines)
	}
	published := strings.Fields(lines[0])
	if len(published) != 2 || published[0] != "published" || !strings.HasPrefix(published[1], "evt_") {
		t.Fatalf("published: %q", lines[0])
	}
	eventID := published[1]

	// The delivery arrives and the quickstart's verifier accepts it.
	var d delivery
	select {
	case d = <-receiver.delivered:
	case <-ctx.Done():
		t.Fatal("no delivery arrived")
	}
	if err := verifier.Verify(d.header, d.body); err != nil {
		t.Fatalf("the delivery did not verify: %v", err)
	}
	if got := d.header.Get("webhook-id"); got != eventID {
		t.Fatalf("webhook-id %s, published %s", got, eventID)
	}
	tampered := append(append([]byte(nil), d.body[:len(d.body)-1]...), ' ')
	if err := verifier.Verify(d.header, tampered); !errors.Is(err, relay.ErrNoMatchingSignature) {
		t.Fatalf("a tampered body: %v", err)
	}
	// The message was listed, the portal token's link printed.
	if message := strings.Fields(lines[1]); len(message) != 2 || !strings.HasPrefix(message[0], "msg_") {
		t.Fatalf("message: %q", lines[1])
	}
	if !strings.Contains(lines[2], "#token=rpt_") {
		t.Fatalf("portal link: %q", lines[2])
	}
	// The refused publish (no `total`): 422 schema_violation at /data.
	if !strings.HasPrefix(lines[3], "422 schema_violation [/data] req_") {
		t.Fatalf("refusal: %q", lines[3])
	}

	client := relay.NewClient(key, relay.WithBaseURL(server.url))
	// The same publish again, with the id the SDK chose: Relay's duplicate.
	consumers, err := client.Consumers.List(ctx, nil).All()
	if err != nil || len(consumers) != 1 {
		t.Fatalf("consumers: %v %v", consumers, err)
	}
	again, err := client.Events.Publish(ctx, &relay.PublishEvent{
		ID: &eventID, Type: "order.paid", Data: map[string]any{"id": "o_1042", "total": 4200}, ConsumerID: &consumers[0].ID,
	})
	if err != nil || !again.Duplicate || again.ID != eventID {
		t.Fatalf("the same id again: %+v %v", again, err)
	}
	// An unknown event type: a typed error too, with the id Relay logged.
	_, err = client.Events.Publish(ctx, &relay.PublishEvent{Type: "no.such.type", Data: map[string]any{}})
	var problem *relay.ProblemError
	if !errors.As(err, &problem) || !errors.Is(err, relay.ErrValidation) ||
		problem.Code != "unknown_event_type" || !strings.HasPrefix(problem.RequestID, "req_") {
		t.Fatalf("unknown type: %#v", err)
	}
	// An unknown id: 404 as ErrNotFound.
	if _, err := client.Messages.Get(ctx, "msg_nope"); !errors.Is(err, relay.ErrNotFound) {
		t.Fatalf("unknown message: %v", err)
	}
	// The delivery's message is delivered, read through the generated layer.
	event, err := client.Events.Get(ctx, eventID)
	if err != nil || len(event.Messages) != 1 {
		t.Fatalf("event: %+v %v", event, err)
	}
}
