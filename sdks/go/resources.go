package relay

import "context"

// EventTypes manages the event type catalog.
type EventTypes struct{ api *API }

// Put creates or updates an event type (a new version when its schema changes).
func (r *EventTypes) Put(ctx context.Context, name string, body *PutEventTypeBody) (*EventTypeOut, error) {
	return r.api.EventTypesPut(ctx, name, body)
}

// Get reads an event type.
func (r *EventTypes) Get(ctx context.Context, name string) (*EventType, error) {
	return r.api.EventTypesGet(ctx, name)
}

// List iterates over the event types.
func (r *EventTypes) List(ctx context.Context, params *EventTypesListParams) *Iter[EventType] {
	return r.api.EventTypesListIter(ctx, params)
}

// Consumers manages consumers: your customers, each with their endpoints.
type Consumers struct{ api *API }

// Create registers a consumer.
func (r *Consumers) Create(ctx context.Context, body *CreateConsumer) (*Consumer, error) {
	return r.api.ConsumersCreate(ctx, body)
}

// Get reads a consumer.
func (r *Consumers) Get(ctx context.Context, id string) (*Consumer, error) {
	return r.api.ConsumersGet(ctx, id)
}

// List iterates over the consumers.
func (r *Consumers) List(ctx context.Context, params *ConsumersListParams) *Iter[Consumer] {
	return r.api.ConsumersListIter(ctx, params)
}

// Update changes a consumer; nil fields stay as they are.
func (r *Consumers) Update(ctx context.Context, id string, body *UpdateConsumer) (*Consumer, error) {
	return r.api.ConsumersUpdate(ctx, id, body)
}

// Delete deletes a consumer.
func (r *Consumers) Delete(ctx context.Context, id string) error {
	return r.api.ConsumersDelete(ctx, id)
}

// Endpoints manages endpoints: where a consumer's messages go.
type Endpoints struct{ api *API }

// Create registers an endpoint; the answer carries its PublicKey (or Secret).
func (r *Endpoints) Create(ctx context.Context, body *CreateEndpoint) (*EndpointCreated, error) {
	return r.api.EndpointsCreate(ctx, body)
}

// Get reads an endpoint.
func (r *Endpoints) Get(ctx context.Context, id string) (*EndpointOut, error) {
	return r.api.EndpointsGet(ctx, id)
}

// List iterates over the endpoints (params.ConsumerID: one consumer's).
func (r *Endpoints) List(ctx context.Context, params *EndpointsListParams) *Iter[EndpointOut] {
	return r.api.EndpointsListIter(ctx, params)
}

// Update changes an endpoint; nil fields stay as they are. ifMatch, when
// not empty, is the ETag (the revision) it must still have.
func (r *Endpoints) Update(ctx context.Context, id string, body *UpdateEndpoint, ifMatch string) (*EndpointOut, error) {
	var params *EndpointsUpdateParams
	if ifMatch != "" {
		params = &EndpointsUpdateParams{IfMatch: &ifMatch}
	}
	return r.api.EndpointsUpdate(ctx, id, params, body)
}

// Delete deletes an endpoint.
func (r *Endpoints) Delete(ctx context.Context, id string) error {
	return r.api.EndpointsDelete(ctx, id)
}

// RotateKey starts a signing key rotation (body may be nil: the defaults).
func (r *Endpoints) RotateKey(ctx context.Context, id string, body *RotateKey) (*KeyRotated, error) {
	return r.api.EndpointsRotateKey(ctx, id, body)
}

// Events publishes and reads events.
type Events struct{ api *API }

// Publish publishes an event. Without an ID, one is chosen (evt_<uuid>)
// and set on body, so every retry of this call, and every later call with
// the same body, sends the same id: Relay answers a repeated id with the
// existing event (Duplicate), so a retried publish never delivers twice.
// Set your own ID to make retries across processes safe too. A lost
// connection or a timeout is retried (the id makes a publish idempotent).
func (r *Events) Publish(ctx context.Context, body *PublishEvent) (*Published, error) {
	if body.ID == nil {
		body.ID = Ptr(NewEventID())
	}
	return r.api.EventsPublish(ctx, body, SafeToRetry())
}

// PublishMany publishes each event in order (the API has no batch
// publish); it stops at the first error, returning what was published.
func (r *Events) PublishMany(ctx context.Context, bodies []*PublishEvent) ([]*Published, error) {
	published := make([]*Published, 0, len(bodies))
	for _, body := range bodies {
		p, err := r.Publish(ctx, body)
		if err != nil {
			return published, err
		}
		published = append(published, p)
	}
	return published, nil
}

// Get reads an event with its messages.
func (r *Events) Get(ctx context.Context, id string) (*EventWithMessages, error) {
	return r.api.EventsGet(ctx, id)
}

// Messages reads the delivery log and restarts deliveries.
type Messages struct{ api *API }

// List iterates over messages, newest first, filtered by params.
func (r *Messages) List(ctx context.Context, params *MessagesListParams) *Iter[Message] {
	return r.api.MessagesListIter(ctx, params)
}

// Get reads a message.
func (r *Messages) Get(ctx context.Context, id string) (*Message, error) {
	return r.api.MessagesGet(ctx, id)
}

// Attempts iterates over a message's delivery attempts.
func (r *Messages) Attempts(ctx context.Context, id string, params *MessagesAttemptsListParams) *Iter[Attempt] {
	return r.api.MessagesAttemptsListIter(ctx, id, params)
}

// Resend delivers a message again.
func (r *Messages) Resend(ctx context.Context, id string) (*Resent, error) {
	return r.api.MessagesResend(ctx, id)
}

// Retry is the batch operation: it retries every failed message matching
// filter (endpoint, event type, state, time range) as one job.
func (r *Messages) Retry(ctx context.Context, filter *BulkRetry) (*Job, error) {
	if filter == nil {
		filter = &BulkRetry{}
	}
	return r.api.MessagesRetry(ctx, filter)
}

// PortalTokens mints and revokes tokens of the consumer portal.
type PortalTokens struct{ api *API }

// Create mints a portal token for one consumer (Token is shown this once).
func (r *PortalTokens) Create(ctx context.Context, body *MintPortalToken) (*PortalTokenCreated, error) {
	return r.api.PortalTokensCreate(ctx, body)
}

// Get reads a portal token (never the token itself).
func (r *PortalTokens) Get(ctx context.Context, id string) (*PortalTokenOut, error) {
	return r.api.PortalTokensGet(ctx, id)
}

// Revoke revokes a portal token.
func (r *PortalTokens) Revoke(ctx context.Context, id string) error {
	return r.api.PortalTokensRevoke(ctx, id)
}

// RevokeAll revokes every portal token of a consumer.
func (r *PortalTokens) RevokeAll(ctx context.Context, consumerID string) (*RevokedAll, error) {
	return r.api.PortalTokensRevokeAll(ctx, &RevokeAll{ConsumerID: consumerID})
}
