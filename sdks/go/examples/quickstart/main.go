// Command quickstart is the README's quickstart: an event type, a consumer
// and its HTTPS endpoint, a publish, the messages listed, a portal link,
// and a refusal as a typed error.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	relay "github.com/relay/relay-go"
)

func main() {
	if _, err := quickstart(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// quickstart returns the verifier the receiver of the endpoint's deliveries uses.
func quickstart(ctx context.Context, out io.Writer) (*relay.Verifier, error) {
	client := relay.NewClient(os.Getenv("RELAY_API_KEY"), relay.WithBaseURL(os.Getenv("RELAY_URL")))

	// An event type, a consumer (your customer) and their HTTPS endpoint.
	_, err := client.EventTypes.Put(ctx, "order.paid", &relay.PutEventTypeBody{
		Schema: map[string]any{
			"type": "object", "required": []string{"id", "total"},
			"properties": map[string]any{
				"id": map[string]any{"type": "string"}, "total": map[string]any{"type": "integer"},
			},
		},
	})
	if err != nil {
		return nil, err
	}
	consumer, err := client.Consumers.Create(ctx, &relay.CreateConsumer{
		ExternalID: "acme-shop", Name: relay.Ptr("Acme Shop"),
	})
	if err != nil {
		return nil, err
	}
	endpoint, err := client.Endpoints.Create(ctx, &relay.CreateEndpoint{
		ConsumerID:  consumer.ID,
		Destination: relay.Destination{HTTPS: &relay.HttpsDestination{URL: os.Getenv("WEBHOOK_URL")}},
		EventTypes:  []string{"order.paid"},
	})
	if err != nil {
		return nil, err
	}
	// The receiver verifies each delivery with the endpoint's public key.
	verifier, err := relay.NewVerifier([]string{*endpoint.PublicKey})
	if err != nil {
		return nil, err
	}

	// Publish: the SDK picks the event's id (its idempotency key) and keeps it
	// across retries, so a retried publish never delivers twice.
	event, err := client.Events.Publish(ctx, &relay.PublishEvent{
		Type: "order.paid", Data: map[string]any{"id": "o_1042", "total": 4200}, ConsumerID: &consumer.ID,
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(out, "published", event.ID)

	// Every list is an iterator; pages are fetched as you go.
	messages := client.Messages.List(ctx, &relay.MessagesListParams{EventID: &event.ID})
	for messages.Next() {
		fmt.Fprintln(out, messages.Item().ID, messages.Item().State)
	}
	if err := messages.Err(); err != nil {
		return nil, err
	}

	// A portal link for the customer to manage their own endpoints.
	token, err := client.PortalTokens.Create(ctx, &relay.MintPortalToken{
		ConsumerID: consumer.ID, LifetimeSeconds: relay.Ptr(3600),
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(out, token.URL)

	// Refusals are typed errors carrying Relay's code, the fields at fault and
	// the request id.
	_, err = client.Events.Publish(ctx, &relay.PublishEvent{
		Type: "order.paid", Data: map[string]any{"id": "o_1043"}, ConsumerID: &consumer.ID,
	})
	var problem *relay.ProblemError
	if !errors.As(err, &problem) || !errors.Is(err, relay.ErrValidation) {
		return nil, fmt.Errorf("expected a refusal, got %v", err)
	}
	var fields []string
	for _, f := range problem.Errors {
		fields = append(fields, f.Field)
	}
	fmt.Fprintln(out, problem.Status, problem.Code, fields, problem.RequestID)
	return verifier, nil
}
