// Relay's embeddable webhook portal: Web Components, plain ES modules.
//
//   <script type="module" src="https://relay.example.com/portal/assets/relay-portal.js"></script>
//   <relay-portal></relay-portal>
//   <script type="module">
//     const { token } = await (await fetch("/my-backend/relay-portal-token")).json();
//     document.querySelector("relay-portal").token = token;
//   </script>
//
// Elements: <relay-portal> (everything), and its parts for pages that want
// only one: <relay-endpoints>, <relay-event-catalog>. Set `token` (a
// property, so the token never sits in the DOM as an attribute); `api-base`
// (attribute) defaults to the origin this module was served from.
//
// Nothing the API returns is parsed as HTML: see dom.js.

import { PortalClient } from "./api.js";
import { h, replace, when, pretty, uid } from "./dom.js";
import { STYLES, applyBrand } from "./theme.js";
import { verificationExamples } from "./verify-examples.js";

const MESSAGE_STATES = [
  "scheduled",
  "in_flight",
  "held",
  "delivered",
  "failed_permanent",
  "exhausted",
  "expired",
  "window_exceeded",
  "dead_lettered",
  "cancelled",
];

/** Shared plumbing: shadow root, styles, status line, client, session. */
class PortalElement extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = STYLES;
    this.root = h("div", { class: "root", "data-theme": "auto" });
    this.statusLine = h("div", { class: "status", role: "status", "aria-live": "polite" });
    this.shadowRoot.append(style, this.root);
    this.client = null;
    this.session = null;
  }

  set token(t) {
    this.client = t ? new PortalClient(t, this.getAttribute("api-base") || undefined) : null;
    this.start();
  }

  /** Shares another element's client and session (the parts inside <relay-portal>). */
  attach(client, session) {
    this.root.classList.add("nested");
    this.client = client;
    this.session = session;
    applyBrand(this.root, session.brand);
    this.render();
  }

  async start() {
    if (!this.client) return;
    try {
      this.session = await this.client.session();
      applyBrand(this.root, this.session.brand);
      this.render();
    } catch (e) {
      this.fail(e);
    }
  }

  can(capability) {
    return !!this.session && this.session.capabilities.includes(capability);
  }

  say(text) {
    this.statusLine.classList.remove("error");
    this.statusLine.textContent = text;
    // A view rendered meanwhile may have left it out: show it above.
    if (!this.statusLine.isConnected) this.root.prepend(this.statusLine);
  }

  fail(e) {
    this.statusLine.classList.add("error");
    const code = e && e.code ? ` (${e.code})` : "";
    this.statusLine.textContent = `${(e && e.message) || e}${code}`;
    if (!this.statusLine.isConnected) replace(this.root, this.statusLine);
  }

  /** Runs `f`, reporting its failure in the status line. */
  async act(f, done) {
    try {
      const r = await f();
      if (done) this.say(done);
      return r;
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }
}

/** Tabs with the ARIA tabs pattern: arrow keys, Home and End move focus. */
function tabs(label, entries, onSelect, selected) {
  const list = h("div", { role: "tablist", "aria-label": label });
  const buttons = entries.map(([key, text], i) => {
    const b = h(
      "button",
      {
        type: "button",
        role: "tab",
        id: uid("tab"),
        "aria-selected": key === selected ? "true" : "false",
        tabindex: key === selected ? "0" : "-1",
        "data-key": key,
        onclick: () => select(i),
      },
      text,
    );
    return b;
  });
  function select(i, focus) {
    buttons.forEach((b, j) => {
      b.setAttribute("aria-selected", j === i ? "true" : "false");
      b.tabIndex = j === i ? 0 : -1;
    });
    if (focus) buttons[i].focus();
    onSelect(entries[i][0]);
  }
  list.addEventListener("keydown", (ev) => {
    const i = buttons.indexOf(ev.target);
    if (i < 0) return;
    let next = null;
    if (ev.key === "ArrowRight") next = (i + 1) % buttons.length;
    else if (ev.key === "ArrowLeft") next = (i - 1 + buttons.length) % buttons.length;
    else if (ev.key === "Home") next = 0;
    else if (ev.key === "End") next = buttons.length - 1;
    if (next !== null) {
      ev.preventDefault();
      select(next, true);
    }
  });
  list.append(...buttons);
  return list;
}

function stateBadge(state) {
  return h("span", { class: `state state-${state}` }, state.replace(/_/g, " "));
}

function urlOf(endpoint) {
  return (endpoint.destination && endpoint.destination.url) || "";
}

/** A labelled field: returns [wrapper, control]. */
function field(labelText, control, hint) {
  const id = control.id || uid("f");
  control.id = id;
  const parts = [h("label", { for: id }, labelText), control];
  if (hint) {
    const hid = uid("hint");
    control.setAttribute("aria-describedby", hid);
    parts.push(h("div", { class: "muted", id: hid }, hint));
  }
  return h("div", {}, parts);
}

/** Checkboxes for the event types an endpoint subscribes to. */
function eventTypePicker(types, selected) {
  const chosen = new Set(selected || []);
  const boxes = types.map((t) =>
    h("label", {}, h("input", { type: "checkbox", value: t.name, checked: chosen.has(t.name) }), t.name),
  );
  const all = h("label", {}, h("input", { type: "checkbox", value: "*", checked: chosen.has("*") }), "All event types (*)");
  const set = h("fieldset", {}, h("legend", {}, "Event types"), all, boxes);
  set.values = () =>
    [...set.querySelectorAll("input[type=checkbox]")].filter((b) => b.checked).map((b) => b.value);
  return set;
}

// ---------------------------------------------------------------------------
// The catalog.

export class RelayEventCatalog extends PortalElement {
  async render() {
    const list = h("div", {}, "Loading…");
    replace(this.root, h("h2", {}, "Event types"), this.statusLine, list);
    const types = await this.act(() => this.client.eventTypes());
    if (!types) return;
    if (!types.data.length) {
      replace(list, h("p", { class: "muted" }, "No event types yet."));
      return;
    }
    replace(
      list,
      types.data.map((t) => {
        const current = (t.versions || []).find((v) => v.version === t.current_version) || {};
        return h(
          "details",
          { class: "card" },
          h("summary", {}, h("strong", {}, t.name), " ", h("span", { class: "muted" }, `v${t.current_version}`)),
          t.description ? h("p", {}, t.description) : null,
          h("h3", {}, "Schema"),
          h("pre", { "aria-label": `JSON Schema of ${t.name}` }, pretty(current.schema)),
          h("h3", {}, "Sample payload"),
          current.sample === undefined || current.sample === null
            ? h("p", { class: "muted" }, "No sample.")
            : h("pre", { "aria-label": `Sample payload of ${t.name}` }, pretty(current.sample)),
        );
      }),
    );
  }
}

// ---------------------------------------------------------------------------
// Endpoints: the list, a new endpoint, one endpoint's views.

export class RelayEndpoints extends PortalElement {
  constructor() {
    super();
    this.selected = null;
    this.view = "overview";
    this.catalog = null;
  }

  async types() {
    if (!this.catalog) {
      const r = await this.client.eventTypes();
      this.catalog = r.data;
    }
    return this.catalog;
  }

  async render() {
    if (this.selected) return this.renderEndpoint();
    const body = h("div", {}, "Loading…");
    const add = this.can("manage_endpoints")
      ? h("button", { type: "button", onclick: () => this.renderCreate() }, "Add endpoint")
      : null;
    replace(this.root, h("h2", {}, "Endpoints"), this.statusLine, h("div", { class: "row" }, add), body);
    const page = await this.act(() => this.client.endpoints());
    if (!page) return;
    if (!page.data.length) {
      replace(body, h("p", { class: "muted" }, "No endpoints yet."));
      return;
    }
    replace(
      body,
      h(
        "table",
        {},
        h("caption", { class: "visually-hidden" }, "Your endpoints"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "URL"), h("th", { scope: "col" }, "State"), h("th", { scope: "col" }, "Event types"), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Actions")))),
        h(
          "tbody",
          {},
          page.data.map((e) =>
            h(
              "tr",
              { "data-endpoint": e.id },
              h("td", {}, h("code", {}, urlOf(e))),
              h("td", {}, stateBadge(e.state)),
              h("td", {}, e.event_types.join(", ") || "—"),
              h("td", {}, h("button", { type: "button", class: "secondary", onclick: () => this.open(e.id), "aria-label": `Open ${urlOf(e)}` }, "Open")),
            ),
          ),
        ),
      ),
    );
  }

  open(id, view) {
    this.selected = id;
    this.view = view || "overview";
    this.render();
  }

  async renderCreate() {
    const types = await this.act(() => this.types());
    if (!types) return;
    const url = h("input", { type: "url", required: true, placeholder: "https://example.com/webhooks", autocomplete: "off" });
    const description = h("input", { type: "text", maxlength: "500" });
    const picker = eventTypePicker(types, []);
    const form = h(
      "form",
      {
        onsubmit: async (ev) => {
          ev.preventDefault();
          const created = await this.act(
            () => this.client.createEndpoint({ url: url.value, description: description.value || null, event_types: picker.values() }),
            "Endpoint added.",
          );
          if (created) this.open(created.id);
        },
      },
      field("Endpoint URL", url, "Where Relay delivers your events (https://)."),
      field("Description", description),
      picker,
      h(
        "div",
        { class: "row" },
        h("button", { type: "submit" }, "Add endpoint"),
        h("button", { type: "button", class: "secondary", onclick: () => this.render() }, "Cancel"),
      ),
    );
    replace(this.root, h("h2", {}, "Add an endpoint"), this.statusLine, form);
    url.focus();
  }

  async renderEndpoint() {
    const e = await this.act(() => this.client.endpoint(this.selected));
    if (!e) {
      this.selected = null;
      return;
    }
    this.endpoint = e;
    const panel = h("div", { role: "tabpanel" });
    const views = [
      ["overview", "Overview"],
      ["log", "Delivery log"],
      ["failed", "Failed deliveries"],
      ["keys", "Signing keys"],
      ["test", "Testing"],
    ];
    const show = (v) => {
      this.view = v;
      this.renderView(panel);
    };
    const list = tabs("Endpoint", views, show, this.view);
    replace(
      this.root,
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "secondary", onclick: () => { this.selected = null; this.render(); } }, "← All endpoints"),
      ),
      h("h2", {}, h("code", {}, urlOf(e))),
      h("p", {}, "State: ", stateBadge(e.state), e.disabled_reason ? ` (${e.disabled_reason})` : ""),
      this.statusLine,
      list,
      panel,
    );
    const current = list.querySelector(`[data-key="${this.view}"]`);
    panel.setAttribute("aria-labelledby", current ? current.id : "");
    this.renderView(panel);
  }

  renderView(panel) {
    const tab = this.root.querySelector(`[role=tab][data-key="${this.view}"]`);
    if (tab) panel.setAttribute("aria-labelledby", tab.id);
    const f = {
      overview: () => this.overview(panel),
      log: () => this.log(panel, {}),
      failed: () => this.failed(panel),
      keys: () => this.keys(panel),
      test: () => this.testing(panel),
    }[this.view];
    f();
  }

  async overview(panel) {
    const e = this.endpoint;
    const manage = this.can("manage_endpoints");
    const actions = h("div", { class: "row" });
    if (manage) {
      actions.append(h("button", { type: "button", class: "secondary", onclick: () => this.edit(panel) }, "Edit"));
      if (e.state === "disabled") {
        actions.append(
          h("button", { type: "button", onclick: () => this.act(() => this.client.enable(e.id, {}), "Endpoint enabled.").then(() => this.renderEndpoint()) }, "Enable"),
        );
      } else {
        actions.append(
          h("button", { type: "button", class: "secondary", onclick: () => this.act(() => this.client.disable(e.id), "Endpoint disabled.").then(() => this.renderEndpoint()) }, "Disable"),
        );
      }
      const del = h("button", { type: "button", class: "danger" }, "Delete");
      del.addEventListener("click", async () => {
        if (del.dataset.confirm !== "yes") {
          del.dataset.confirm = "yes";
          del.textContent = "Confirm delete";
          return;
        }
        const done = await this.act(() => this.client.deleteEndpoint(e.id).then(() => true), "Endpoint deleted.");
        if (done) {
          this.selected = null;
          this.render();
        }
      });
      actions.append(del);
    }
    const health = h("div", { class: "card" }, "Loading health…");
    replace(
      panel,
      h(
        "dl",
        {},
        h("dt", {}, "Description"),
        h("dd", {}, e.description || "—"),
        h("dt", {}, "Event types"),
        h("dd", {}, e.event_types.join(", ") || "none"),
        h("dt", {}, "Signature scheme"),
        h("dd", {}, e.signature_scheme),
        h("dt", {}, "Automatic disabling"),
        h("dd", {}, e.auto_disable ? "on (after 5 days of failures)" : "off"),
      ),
      (e.warnings || []).map((w) => h("p", { class: "muted" }, w)),
      actions,
      h("h3", {}, "Health"),
      health,
    );
    const hl = await this.act(() => this.client.health(e.id));
    if (!hl) return;
    const pct = (r) => (r === null || r === undefined ? "—" : `${(r * 100).toFixed(1)} %`);
    replace(
      health,
      h(
        "dl",
        {},
        h("dt", {}, "Success rate, last hour"),
        h("dd", {}, `${pct(hl.success_rate_last_hour)} of ${hl.attempts_last_hour} attempts`),
        h("dt", {}, "Success rate, last 24 hours"),
        h("dd", {}, `${pct(hl.success_rate_last_24h)} of ${hl.attempts_last_24h} attempts`),
        h("dt", {}, "Latency (p50 / p90 / p99)"),
        h("dd", {}, hl.latency ? `${hl.latency.p50_ms} / ${hl.latency.p90_ms} / ${hl.latency.p99_ms} ms` : "—"),
        h("dt", {}, "Last success"),
        h("dd", {}, when(hl.last_success_at)),
        h("dt", {}, "Backlog"),
        h("dd", {}, `${hl.backlog.size} to deliver`),
      ),
      hl.recent_errors.length
        ? [
            h("h3", {}, "Recent errors"),
            h(
              "ul",
              { class: "plain" },
              hl.recent_errors.slice(0, 5).map((r) => h("li", {}, `${when(r.at)}: ${r.status_code || r.error_kind || r.outcome}`)),
            ),
          ]
        : null,
    );
  }

  async edit(panel) {
    const e = this.endpoint;
    const types = await this.act(() => this.types());
    if (!types) return;
    const url = h("input", { type: "url", required: true, value: urlOf(e) });
    const description = h("input", { type: "text", maxlength: "500", value: e.description || "" });
    const picker = eventTypePicker(types, e.event_types);
    const auto = h("input", { type: "checkbox", checked: e.auto_disable });
    const form = h(
      "form",
      {
        onsubmit: async (ev) => {
          ev.preventDefault();
          const saved = await this.act(
            () =>
              this.client.updateEndpoint(e.id, {
                url: url.value,
                description: description.value || null,
                event_types: picker.values(),
                auto_disable: auto.checked,
              }),
            "Endpoint saved.",
          );
          if (saved) this.renderEndpoint();
        },
      },
      field("Endpoint URL", url),
      field("Description", description),
      picker,
      h("label", {}, auto, " Disable automatically after 5 days of failures"),
      h(
        "div",
        { class: "row" },
        h("button", { type: "submit" }, "Save"),
        h("button", { type: "button", class: "secondary", onclick: () => this.overview(panel) }, "Cancel"),
      ),
    );
    replace(panel, h("h3", {}, "Edit endpoint"), form);
    url.focus();
  }

  async log(panel, filter) {
    const types = (await this.act(() => this.types())) || [];
    const state = h("select", {}, h("option", { value: "" }, "Any state"), MESSAGE_STATES.map((s) => h("option", { value: s, selected: filter.state === s }, s.replace(/_/g, " "))));
    const type = h("select", {}, h("option", { value: "" }, "Any event type"), types.map((t) => h("option", { value: t.name, selected: filter.event_type === t.name }, t.name)));
    const since = h("input", { type: "datetime-local", value: filter.sinceLocal || "" });
    const results = h("div", {}, "Loading…");
    const form = h(
      "form",
      {
        class: "row",
        "aria-label": "Filter the delivery log",
        onsubmit: (ev) => {
          ev.preventDefault();
          this.log(panel, {
            state: state.value,
            event_type: type.value,
            sinceLocal: since.value,
            since: since.value ? new Date(since.value).toISOString() : "",
          });
        },
      },
      field("State", state),
      field("Event type", type),
      field("Since", since),
      h("button", { type: "submit" }, "Filter"),
    );
    replace(panel, form, results);
    this.page(results, (after) => this.client.messages(this.endpoint.id, { state: filter.state, event_type: filter.event_type, since: filter.since, limit: 20, after }));
  }

  async failed(panel) {
    const results = h("div", {}, "Loading…");
    const parts = [h("p", { class: "muted" }, "Messages that were not delivered (or are held while the endpoint is disabled).")];
    if (this.can("recover")) {
      const since = h("input", { type: "datetime-local", required: true });
      parts.push(
        h(
          "form",
          {
            class: "row",
            "aria-label": "Recover failed messages",
            onsubmit: async (ev) => {
              ev.preventDefault();
              const r = await this.act(() => this.client.recover(this.endpoint.id, new Date(since.value).toISOString()));
              if (r) this.say(`${r.requeued} messages queued again.`);
            },
          },
          field("Recover everything failed since", since),
          h("button", { type: "submit" }, "Recover"),
        ),
      );
    }
    replace(panel, parts, results);
    this.page(results, (after) => this.client.failed(this.endpoint.id, after));
  }

  /** A keyset-paginated message table in `el`, with a refresh button. */
  async page(el, fetchPage, after) {
    const p = await this.act(() => fetchPage(after));
    if (!p) return;
    const refresh = h("button", { type: "button", class: "secondary", onclick: () => this.page(el, fetchPage, after) }, "Refresh");
    if (!p.data.length) {
      replace(el, h("p", { class: "muted" }, after ? "No more messages." : "No messages."), h("div", { class: "row" }, refresh));
      return;
    }
    const detail = h("div", {});
    replace(
      el,
      h(
        "table",
        {},
        h("caption", { class: "visually-hidden" }, "Messages"),
        h(
          "thead",
          {},
          h("tr", {}, ["Created", "Event type", "State", "Attempts used", ""].map((c) => h("th", { scope: "col" }, c || h("span", { class: "visually-hidden" }, "Actions")))),
        ),
        h(
          "tbody",
          {},
          p.data.map((m) =>
            h(
              "tr",
              { "data-message": m.id },
              h("td", {}, when(m.created_at)),
              h("td", {}, m.event_type),
              h("td", {}, stateBadge(m.state)),
              h("td", {}, String(m.attempts_used)),
              h("td", {}, h("button", { type: "button", class: "secondary", onclick: () => this.message(detail, m.id), "aria-label": `View message ${m.id}` }, "View")),
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "row" },
        refresh,
        p.next_after ? h("button", { type: "button", class: "secondary", onclick: () => this.page(el, fetchPage, p.next_after) }, "Next page") : null,
      ),
      detail,
    );
  }

  async message(el, id) {
    const [m, attempts] = await Promise.all([
      this.act(() => this.client.message(id)),
      this.act(() => this.client.attempts(id)),
    ]);
    if (!m || !attempts) return;
    const resend = this.can("recover")
      ? h(
          "button",
          {
            type: "button",
            onclick: async () => {
              const r = await this.act(() => this.client.resend(id));
              if (r) {
                this.say(`Resent: ${r.attempt ? `attempt ${r.attempt.number}, ${r.attempt.status_code || r.attempt.error_kind || r.attempt.outcome}` : "no attempt made"}; the message is ${r.message.state.replace(/_/g, " ")}.`);
                this.message(el, id);
              }
            },
          },
          "Resend",
        )
      : null;
    replace(
      el,
      h(
        "section",
        { class: "card", "aria-label": `Message ${id}`, "data-message-detail": id },
        h("h3", {}, `Message ${id}`),
        h("p", {}, "State: ", stateBadge(m.state), m.terminal_reason ? ` (${m.terminal_reason})` : ""),
        h("div", { class: "row" }, resend),
        // The payload as this endpoint receives it (its version's thin
        // fields, allow list and personal-data choice), never more.
        h("h3", {}, "Payload"),
        m.endpoint_version != null
          ? h(
              "p",
              { class: "muted", "data-versions": "" },
              `Shaped by endpoint version ${m.endpoint_version}` +
                (m.event_type_version != null ? ` and ${m.event_type} version ${m.event_type_version}.` : "."),
            )
          : null,
        m.event ? h("pre", { "aria-label": "Payload" }, pretty(m.event.data)) : h("p", { class: "muted" }, "Not available (no longer kept, or not meant for this endpoint)."),
        h("h3", {}, "Attempts"),
        attempts.data.length
          ? h(
              "table",
              {},
              h("thead", {}, h("tr", {}, ["#", "When", "Result", "Duration", "Response"].map((c) => h("th", { scope: "col" }, c)))),
              h(
                "tbody",
                {},
                attempts.data.map((a) =>
                  h(
                    "tr",
                    { "data-attempt": a.id },
                    h("td", {}, String(a.number)),
                    h("td", {}, when(a.started_at)),
                    h("td", {}, `${a.outcome}${a.status_code ? ` (HTTP ${a.status_code})` : a.error_kind ? ` (${a.error_kind})` : ""}`),
                    h("td", {}, `${a.duration_ms} ms`),
                    h("td", {}, a.response_body ? h("pre", {}, a.response_body_encoding === "base64" ? `(binary, base64) ${a.response_body}` : a.response_body) : "—"),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, "No attempts yet."),
      ),
    );
    el.querySelector("h3").tabIndex = -1;
    el.querySelector("h3").focus();
  }

  async keys(panel) {
    const e = this.endpoint;
    const list = h("div", {}, "Loading…");
    const parts = [list];
    if (this.can("rotate_keys")) {
      const overlap = h("input", { type: "number", min: "0", max: "168", value: "24" });
      parts.unshift(
        h(
          "form",
          {
            class: "row",
            "aria-label": "Rotate the signing key",
            onsubmit: async (ev) => {
              ev.preventDefault();
              const r = await this.act(() => this.client.rotateKey(e.id, { overlap_hours: Number(overlap.value) }), "Key rotated: both keys sign during the overlap.");
              if (r) this.keys(panel);
            },
          },
          field("Overlap (hours)", overlap, "How long the old key keeps signing beside the new one."),
          h("button", { type: "submit" }, "Rotate key"),
        ),
      );
    }
    replace(panel, parts);
    const keys = await this.act(() => this.client.keys(e.id));
    if (!keys) return;
    const now = Date.now();
    const signing = keys.data.filter((k) => k.retires_at === null || new Date(k.retires_at).getTime() > now);
    const publicKeys = signing.map((k) => k.public_key).filter(Boolean);
    replace(
      list,
      h(
        "table",
        {},
        h("caption", { class: "visually-hidden" }, "Signing keys"),
        h("thead", {}, h("tr", {}, ["Key", "Scheme", "Public key", "Created", "Stops signing"].map((c) => h("th", { scope: "col" }, c)))),
        h(
          "tbody",
          {},
          keys.data.map((k) =>
            h(
              "tr",
              { "data-key-id": k.id },
              h("td", {}, h("code", {}, k.id)),
              h("td", {}, k.scheme),
              h("td", {}, k.public_key ? h("code", { class: "public-key" }, k.public_key) : h("span", { class: "muted" }, "HMAC secret (shown once, at creation)")),
              h("td", {}, when(k.created_at)),
              h("td", {}, k.retires_at ? when(k.retires_at) : "current"),
            ),
          ),
        ),
      ),
      h("h3", {}, "Verify deliveries"),
      publicKeys.length
        ? verificationBlock(publicKeys)
        : h("p", { class: "muted" }, "This endpoint signs with an HMAC secret (v1): use it in place of the public keys below."),
    );
  }

  async testing(panel) {
    const e = this.endpoint;
    if (!this.can("send_tests")) {
      replace(panel, h("p", { class: "muted" }, "Sending test events is not enabled for this portal."));
      return;
    }
    const types = ((await this.act(() => this.types())) || []).filter(
      (t) => e.event_types.includes("*") || e.event_types.includes(t.name),
    );
    const select = h("select", {}, types.map((t) => h("option", { value: t.name }, t.name)));
    const result = h("div", {});
    replace(
      panel,
      h(
        "form",
        {
          class: "row",
          "aria-label": "Send a test event",
          onsubmit: async (ev) => {
            ev.preventDefault();
            const r = await this.act(() => this.client.sendTest(e.id, select.value));
            if (!r) return;
            const a = r.attempt;
            this.say(`Test event sent: ${a ? `${a.outcome}${a.status_code ? ` (HTTP ${a.status_code})` : ""}` : "no attempt made"}.`);
            replace(result, h("p", {}, "Message ", h("code", {}, r.message.id), ": ", stateBadge(r.message.state)));
          },
        },
        field("Event type", select),
        h("button", { type: "submit" }, "Send test event"),
      ),
      result,
    );
  }
}

/** The SDK examples, as tabs of code (text only). */
function verificationBlock(publicKeys) {
  const examples = verificationExamples(publicKeys);
  const code = h("pre", { "aria-label": "Verification example" });
  const langs = [
    ["rust", "Rust"],
    ["python", "Python"],
    ["typescript", "TypeScript"],
  ];
  const show = (k) => {
    code.textContent = examples[k];
    code.dataset.lang = k;
  };
  const t = tabs("SDK", langs, show, "rust");
  show("rust");
  return h("div", { class: "verify" }, t, code);
}

// ---------------------------------------------------------------------------
// The whole portal.

export class RelayPortal extends PortalElement {
  constructor() {
    super();
    this.section = "endpoints";
  }

  render() {
    const s = this.session;
    const brand = s.brand || {};
    const logo = brand.logo_url ? h("img", { src: brand.logo_url, alt: brand.name ? `${brand.name} logo` : "Logo" }) : null;
    const header = h(
      "header",
      { class: "brand" },
      logo,
      h("div", {}, h("h1", {}, brand.name ? `${brand.name} webhooks` : "Webhooks"), h("div", { class: "muted" }, s.consumer_name || s.consumer_id)),
    );
    const panel = h("div", { role: "tabpanel" });
    const show = (key) => {
      this.section = key;
      const el = key === "catalog" ? new RelayEventCatalog() : new RelayEndpoints();
      el.setAttribute("data-section", key);
      const tab = list.querySelector(`[data-key="${key}"]`);
      if (tab) panel.setAttribute("aria-labelledby", tab.id);
      replace(panel, el);
      el.attach(this.client, this.session);
      this.part = el;
    };
    const list = tabs("Portal", [["endpoints", "Endpoints"], ["catalog", "Event types"]], show, this.section);
    replace(this.root, header, this.statusLine, list, panel);
    show(this.section);
  }
}

customElements.get("relay-portal") || customElements.define("relay-portal", RelayPortal);
customElements.get("relay-endpoints") || customElements.define("relay-endpoints", RelayEndpoints);
customElements.get("relay-event-catalog") || customElements.define("relay-event-catalog", RelayEventCatalog);
