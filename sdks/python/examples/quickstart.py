import os

from relay_sdk import Relay, ValidationError, Verifier

relay = Relay(api_key=os.environ["RELAY_API_KEY"], base_url=os.environ["RELAY_URL"])

# An event type, a consumer (your customer) and their HTTPS endpoint.
relay.event_types.put(
    "order.paid",
    schema={"type": "object", "required": ["id", "total"],
            "properties": {"id": {"type": "string"}, "total": {"type": "integer"}}},
)
consumer = relay.consumers.create("acme-shop", name="Acme Shop")
endpoint = relay.endpoints.create(
    consumer.id,
    {"kind": "https", "url": os.environ["WEBHOOK_URL"]},
    event_types=["order.paid"],
)
# The receiver verifies each delivery with the endpoint's public key.
verifier = Verifier([endpoint.public_key])

# Publish: the SDK picks the event's id (its idempotency key) and keeps it
# across retries, so a retried publish never delivers twice.
event = relay.events.publish("order.paid", {"id": "o_1042", "total": 4200},
                             consumer_id=consumer.id)

# Every list is an iterator; pages are fetched as you go.
for message in relay.messages.list(event_id=event.id):
    print(message.id, message.state)

# A portal link for the customer to manage their own endpoints.
token = relay.portal_tokens.create(consumer.id, lifetime_seconds=3600)
print(token.url)

# Refusals are typed errors carrying Relay's code, the fields at fault and
# the request id.
try:
    relay.events.publish("order.paid", {"id": "o_1043"}, consumer_id=consumer.id)
except ValidationError as e:
    print(e.status, e.code, [f.field for f in e.errors], e.request_id)
