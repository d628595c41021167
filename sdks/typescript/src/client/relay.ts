import { randomUUID } from "node:crypto";

import type { components, operations } from "../generated/api";
import { type Call, type Query, Transport, type TransportOptions } from "./transport";

/** The document's schemas, by name: `Schemas["EndpointOut"]`. */
export type Schemas = components["schemas"];
type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;
type Without<T, K extends keyof T> = Omit<T, K>;

/** An idempotency key for a publish: the event's `id`. */
export function newEventId(): string {
  return `evt_${randomUUID().replace(/-/g, "")}`;
}

const enc = encodeURIComponent;

class Resource {
  constructor(protected readonly t: Transport) {}
}

export class EventTypes extends Resource {
  /** Creates or updates an event type (a new version when its schema changes). */
  put(name: string, body: Schemas["PutEventTypeBody"]): Promise<Schemas["EventTypeOut"]> {
    return this.t.call({ method: "PUT", path: `/v1/event-types/${enc(name)}`, body, safe: true });
  }
  get(name: string): Promise<Schemas["EventTypeOut"]> {
    return this.t.call({ method: "GET", path: `/v1/event-types/${enc(name)}`, safe: true });
  }
  list(query: QueryOf<"event_types.list"> = {}): AsyncGenerator<Schemas["EventType"]> {
    return this.t.pages("/v1/event-types", query);
  }
}

export class Consumers extends Resource {
  create(body: Schemas["CreateConsumer"]): Promise<Schemas["Consumer"]> {
    return this.t.call({ method: "POST", path: "/v1/consumers", body });
  }
  get(id: string): Promise<Schemas["Consumer"]> {
    return this.t.call({ method: "GET", path: `/v1/consumers/${enc(id)}`, safe: true });
  }
  list(query: QueryOf<"consumers.list"> = {}): AsyncGenerator<Schemas["Consumer"]> {
    return this.t.pages("/v1/consumers", query);
  }
  update(id: string, body: Schemas["UpdateConsumer"]): Promise<Schemas["Consumer"]> {
    return this.t.call({ method: "PATCH", path: `/v1/consumers/${enc(id)}`, body });
  }
  async delete(id: string): Promise<void> {
    await this.t.call({ method: "DELETE", path: `/v1/consumers/${enc(id)}`, safe: true });
  }
}

export class Endpoints extends Resource {
  /** Registers an endpoint; the answer carries its `public_key` (or `secret`). */
  create(body: Schemas["CreateEndpoint"]): Promise<Schemas["EndpointCreated"]> {
    return this.t.call({ method: "POST", path: "/v1/endpoints", body });
  }
  get(id: string): Promise<Schemas["EndpointOut"]> {
    return this.t.call({ method: "GET", path: `/v1/endpoints/${enc(id)}`, safe: true });
  }
  list(query: QueryOf<"endpoints.list"> = {}): AsyncGenerator<Schemas["EndpointOut"]> {
    return this.t.pages("/v1/endpoints", query);
  }
  update(id: string, body: Schemas["UpdateEndpoint"], options: { ifMatch?: string } = {}): Promise<Schemas["EndpointOut"]> {
    const headers: Record<string, string> = options.ifMatch === undefined ? {} : { "if-match": options.ifMatch };
    return this.t.call({ method: "PATCH", path: `/v1/endpoints/${enc(id)}`, body, headers });
  }
  async delete(id: string): Promise<void> {
    await this.t.call({ method: "DELETE", path: `/v1/endpoints/${enc(id)}`, safe: true });
  }
  rotateKey(id: string, body: Schemas["RotateKey"] = {}): Promise<Schemas["KeyRotated"]> {
    return this.t.call({ method: "POST", path: `/v1/endpoints/${enc(id)}/rotate-key`, body });
  }
}

export class Events extends Resource {
  /**
   * Publishes an event. Without `id` one is chosen (`evt_<uuid>`) and kept
   * across this call's retries, so a retried publish never creates a second
   * event; pass your own `id` to make retries across processes safe.
   */
  publish(event: Schemas["PublishEvent"]): Promise<Schemas["Published"]> {
    const body = { ...event, id: event.id ?? newEventId() };
    return this.t.call({ method: "POST", path: "/v1/events", body, safe: true });
  }
  /** Publishes each event, in order. */
  async publishMany(events: Iterable<Schemas["PublishEvent"]>): Promise<Schemas["Published"][]> {
    const out: Schemas["Published"][] = [];
    for (const event of events) out.push(await this.publish(event));
    return out;
  }
  get(id: string): Promise<Schemas["EventWithMessages"]> {
    return this.t.call({ method: "GET", path: `/v1/events/${enc(id)}`, safe: true });
  }
}

export class Messages extends Resource {
  /** Messages, newest first, filtered by endpoint, event, state, type, error code, time. */
  list(query: QueryOf<"messages.list"> = {}): AsyncGenerator<Schemas["Message"]> {
    return this.t.pages("/v1/messages", query as Query);
  }
  get(id: string): Promise<Schemas["Message"]> {
    return this.t.call({ method: "GET", path: `/v1/messages/${enc(id)}`, safe: true });
  }
  attempts(id: string, query: QueryOf<"messages.attempts.list"> = {}): AsyncGenerator<Schemas["Attempt"]> {
    return this.t.pages(`/v1/messages/${enc(id)}/attempts`, query);
  }
  resend(id: string): Promise<Schemas["Resent"]> {
    return this.t.call({ method: "POST", path: `/v1/messages/${enc(id)}/resend` });
  }
  /** The batch operation: retries every failed message matching the filter, as one job. */
  retry(filter: Schemas["BulkRetry"]): Promise<Schemas["Job"]> {
    return this.t.call({ method: "POST", path: "/v1/messages/retry", body: filter });
  }
}

export class PortalTokens extends Resource {
  /** Mints a portal token for one consumer (`token` is shown this once). */
  create(body: Schemas["MintPortalToken"]): Promise<Schemas["PortalTokenCreated"]> {
    return this.t.call({ method: "POST", path: "/v1/portal-tokens", body });
  }
  get(id: string): Promise<Schemas["PortalTokenOut"]> {
    return this.t.call({ method: "GET", path: `/v1/portal-tokens/${enc(id)}`, safe: true });
  }
  async revoke(id: string): Promise<void> {
    await this.t.call({ method: "DELETE", path: `/v1/portal-tokens/${enc(id)}`, safe: true });
  }
  revokeAll(body: Schemas["RevokeAll"]): Promise<Schemas["RevokedAll"]> {
    return this.t.call({ method: "POST", path: "/v1/portal-tokens/revoke-all", body });
  }
}

export type RelayOptions = Without<TransportOptions, "baseUrl"> & { baseUrl?: string };

/** A client of Relay's API with one tenant API key (`rk_live_…`). */
export class Relay {
  readonly eventTypes: EventTypes;
  readonly consumers: Consumers;
  readonly endpoints: Endpoints;
  readonly events: Events;
  readonly messages: Messages;
  readonly portalTokens: PortalTokens;
  readonly #t: Transport;

  constructor(options: RelayOptions) {
    this.#t = new Transport({ baseUrl: "http://127.0.0.1:8080", ...options });
    this.eventTypes = new EventTypes(this.#t);
    this.consumers = new Consumers(this.#t);
    this.endpoints = new Endpoints(this.#t);
    this.events = new Events(this.#t);
    this.messages = new Messages(this.#t);
    this.portalTokens = new PortalTokens(this.#t);
  }

  /** Any operation of the API, with this client's retries and typed errors. */
  request<T>(call: Call): Promise<T> {
    return this.#t.call<T>(call);
  }

  /** Every item of any list operation. */
  paginate<T>(path: string, query?: Query): AsyncGenerator<T> {
    return this.#t.pages<T>(path, query);
  }
}
