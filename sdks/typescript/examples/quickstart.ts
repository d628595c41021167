import { Relay, ValidationError, Verifier } from "@relay/sdk";

export async function quickstart(env = process.env) {
  const relay = new Relay({ apiKey: env.RELAY_API_KEY!, baseUrl: env.RELAY_URL! });

  // An event type, a consumer (your customer) and their HTTPS endpoint.
  await relay.eventTypes.put("order.paid", {
    schema: {
      type: "object",
      required: ["id", "total"],
      properties: { id: { type: "string" }, total: { type: "integer" } },
    },
  });
  const consumer = await relay.consumers.create({ external_id: "acme-shop", name: "Acme Shop" });
  const endpoint = await relay.endpoints.create({
    consumer_id: consumer.id,
    destination: { kind: "https", url: env.WEBHOOK_URL! },
    event_types: ["order.paid"],
  });
  // The receiver verifies each delivery with the endpoint's public key.
  const verifier = new Verifier([endpoint.public_key!]);

  // Publish: the SDK picks the event's id (its idempotency key) and keeps it
  // across retries, so a retried publish never delivers twice.
  const event = await relay.events.publish({
    type: "order.paid",
    data: { id: "o_1042", total: 4200 },
    consumer_id: consumer.id,
  });

  // Every list is an async iterator; pages are fetched as you go.
  for await (const message of relay.messages.list({ event_id: event.id })) {
    console.log(message.id, message.state);
  }

  // A portal link for the customer to manage their own endpoints.
  const token = await relay.portalTokens.create({ consumer_id: consumer.id, lifetime_seconds: 3600 });
  console.log(token.url);

  // Refusals are typed errors carrying Relay's code, the fields at fault and
  // the request id.
  try {
    await relay.events.publish({ type: "order.paid", data: { id: "o_1043" }, consumer_id: consumer.id });
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    console.log(e.status, e.code, e.errors.map((f) => f.field), e.requestId);
  }
  return { relay, consumer, endpoint, verifier, event, token };
}
