// The portal's client of Relay's consumer API (/v1/portal/…).
//
// The token goes in the Authorization header of each call, never in a URL;
// no cookie is sent (credentials: "omit"), so no other site can ride on a
// session. Errors are problem+json: thrown as PortalError with its code.

export class PortalError extends Error {
  constructor(status, problem) {
    super((problem && problem.detail) || `HTTP ${status}`);
    this.status = status;
    this.code = (problem && problem.code) || "http_error";
    this.problem = problem;
  }
}

/** The API's base URL when none is given: where this module was served from. */
export function defaultBase() {
  return new URL("/", import.meta.url).origin;
}

export class PortalClient {
  #token;

  constructor(token, base = defaultBase()) {
    this.#token = token;
    this.base = base.replace(/\/$/, "");
  }

  async call(method, path, body) {
    const headers = { Authorization: `Bearer ${this.#token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(this.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
    const text = await res.text();
    let json = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    if (!res.ok) throw new PortalError(res.status, json);
    return json;
  }

  get(path) {
    return this.call("GET", path);
  }
  post(path, body) {
    return this.call("POST", path, body);
  }
  patch(path, body) {
    return this.call("PATCH", path, body);
  }
  delete(path) {
    return this.call("DELETE", path);
  }

  session() {
    return this.get("/v1/portal/session");
  }
  /** Every event type: the list comes a page (at most 250) at a time. */
  async eventTypes() {
    const data = [];
    let after;
    do {
      const page = await this.get("/v1/portal/event-types" + query({ limit: 250, after }));
      data.push(...page.data);
      after = page.next_after;
    } while (after);
    return { data };
  }
  endpoints(after) {
    return this.get("/v1/portal/endpoints" + query({ after }));
  }
  endpoint(id) {
    return this.get(`/v1/portal/endpoints/${enc(id)}`);
  }
  createEndpoint(body) {
    return this.post("/v1/portal/endpoints", body);
  }
  updateEndpoint(id, body) {
    return this.patch(`/v1/portal/endpoints/${enc(id)}`, body);
  }
  deleteEndpoint(id) {
    return this.delete(`/v1/portal/endpoints/${enc(id)}`);
  }
  disable(id) {
    return this.post(`/v1/portal/endpoints/${enc(id)}/disable`);
  }
  enable(id, body) {
    return this.post(`/v1/portal/endpoints/${enc(id)}/enable`, body);
  }
  keys(id) {
    return this.get(`/v1/portal/endpoints/${enc(id)}/signing-keys`);
  }
  rotateKey(id, body) {
    return this.post(`/v1/portal/endpoints/${enc(id)}/rotate-key`, body);
  }
  health(id) {
    return this.get(`/v1/portal/endpoints/${enc(id)}/health`);
  }
  sendTest(id, eventType) {
    return this.post(`/v1/portal/endpoints/${enc(id)}/test`, eventType ? { event_type: eventType } : {});
  }
  recover(id, since) {
    return this.post(`/v1/portal/endpoints/${enc(id)}/recover`, { since });
  }
  messages(id, filter) {
    return this.get(`/v1/portal/endpoints/${enc(id)}/messages` + query(filter));
  }
  failed(id, after) {
    return this.get(`/v1/portal/endpoints/${enc(id)}/failed` + query({ after }));
  }
  message(id) {
    return this.get(`/v1/portal/messages/${enc(id)}`);
  }
  attempts(id) {
    return this.get(`/v1/portal/messages/${enc(id)}/attempts` + query({ limit: 250 }));
  }
  resend(id) {
    return this.post(`/v1/portal/messages/${enc(id)}/resend`);
  }
}

function enc(s) {
  return encodeURIComponent(s);
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== "") q.set(k, v);
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
