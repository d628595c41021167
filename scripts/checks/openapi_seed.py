"""Seeds a running Relay for scripts/checks/openapi.sh and writes the
schemathesis configuration that uses the seeded objects.

Creates, through the API itself: a tenant and a live API key, an event type
with a sample, a consumer, an endpoint (on a loopback port nothing listens
on), a published event and its message, a bulk-retry job, a portal
token of the consumer and a tenant secret. The
configuration binds each path `{id}` to the real id of its kind half of the
time, so the run sees real objects (and checks their schemas) as well as
unknown ids. DELETE operations keep random ids, so the seeds survive the run.

Usage: openapi_seed.py URL OPERATOR_TOKEN CONFIG_OUT
(prints the API key and a portal token of the seeded consumer)
Only the standard library: it runs on the python of the tools' environment.
"""

import json
import sys
import urllib.request


def call(url, token, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method)
    req.add_header("Authorization", "Bearer " + token)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp)


def toml_string(s):
    return json.dumps(s)  # a JSON string is a valid TOML basic string


def main():
    url, operator, config_out = sys.argv[1:4]
    tenant = call(url, operator, "POST", "/v1/tenants", {"name": "check-openapi"})
    api_key = call(
        url, operator, "POST", f"/v1/tenants/{tenant['id']}/api-keys", {"environment": "live"}
    )
    key = api_key["key"]
    call(
        url,
        key,
        "PUT",
        "/v1/event-types/order.created",
        {"schema": {"type": "object"}, "sample": {"order_id": "o-1"}},
    )
    consumer = call(url, key, "POST", "/v1/consumers", {"external_id": "acme", "name": "Acme"})
    endpoint = call(
        url,
        key,
        "POST",
        "/v1/endpoints",
        {
            "consumer_id": consumer["id"],
            "destination": {"kind": "https", "url": "https://127.0.0.1:9/hook"},
            "event_types": ["order.created"],
        },
    )
    # Addressed to the consumer: an event without consumer_id reaches a
    # customer only when its type is for all consumers (docs/security.md).
    published = call(
        url,
        key,
        "POST",
        "/v1/events",
        {"type": "order.created", "consumer_id": consumer["id"], "data": {"order_id": "o-2"}},
    )
    event = call(url, key, "GET", f"/v1/events/{published['id']}")
    message = event["messages"][0]["id"]
    job = call(url, key, "POST", "/v1/messages/retry", {"endpoint_id": endpoint["id"]})
    # A portal token of the consumer, with every capability: the portal's
    # operations (tag `portal`) run with it.
    portal = call(
        url,
        key,
        "POST",
        "/v1/portal-tokens",
        {
            "consumer_id": consumer["id"],
            "capabilities": ["manage_endpoints", "rotate_keys", "recover", "send_tests"],
            "lifetime_seconds": 3600,
        },
    )

    call(url, key, "PUT", "/v1/secrets/seeded-secret", {"value": "check-openapi-value"})

    ids = {
        "tenants": tenant["id"],
        "consumers": consumer["id"],
        "endpoints": endpoint["id"],
        "events": published["id"],
        "messages": message,
        "jobs": job["id"],
    }
    lines = ["# Written by scripts/checks/openapi_seed.py for one run of scripts/checks/openapi.sh.", ""]
    for kind, value in ids.items():
        lines += [f"[dictionaries.{kind}]", f"values = [{toml_string(value)}]", ""]
    lines += ["[dictionaries.key_ids]", f"values = [{toml_string(api_key['id'])}]", ""]
    lines += ["[dictionaries.event_types]", 'values = ["order.created"]', ""]
    lines += ["[dictionaries.secrets]", 'values = ["seeded-secret"]', ""]
    bindings = {kind: {"path.id": kind} for kind in ids}
    bindings["tenants"]["path.key_id"] = "key_ids"
    bindings["event-types"] = {"path.name": "event_types"}
    bindings["secrets"] = {"path.name": "secrets"}
    bindings["portal/endpoints"] = {"path.id": "endpoints"}
    bindings["portal/messages"] = {"path.id": "messages"}
    for prefix, parameters in bindings.items():
        bound = ", ".join(
            f"{toml_string(p)} = {{ dictionary = {toml_string(d)}, probability = 0.5 }}"
            for p, d in parameters.items()
        )
        lines += [
            "[[operations]]",
            f"include-path-regex = {toml_string('^/v1/' + prefix + '/')}",
            'exclude-method = "DELETE"',
            f"parameters = {{ {bound} }}",
            "",
        ]
    with open(config_out, "w") as f:
        f.write("\n".join(lines))
    print(key, portal["token"])


if __name__ == "__main__":
    main()
