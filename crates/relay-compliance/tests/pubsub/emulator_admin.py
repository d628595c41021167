#!/usr/bin/env python3
"""The Pub/Sub tests' own client: keys made at test time, and the
emulator's REST API read with the standard library (an implementation
independent of Relay's).

    emulator_admin.py keys DIR TOKEN_URL TOPIC...
        # three service accounts' JSON keys, RSA 2048 made with PyPI
        # `cryptography`: "relay" (granted the topics), "denied" (granted
        # nothing), "wrong" (relay's email and key id with another private
        # key, which the token endpoint must refuse). Writes DIR/<name>.json
        # and DIR/accounts.json (pubsub_front.py's), prints
        # {name: {"client_email", "private_key"}}.
    emulator_admin.py setup EMULATOR TOPIC SUBSCRIPTION
        # the topic, and a subscription to it with message ordering
    emulator_admin.py drain EMULATOR SUBSCRIPTION
        # pulls every message and acknowledges it: prints [{"data_b64",
        # "attributes", "ordering_key", "message_id"}] in the order pulled
"""
import json
import os
import secrets
import sys
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def keypair():
    k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                          serialization.NoEncryption()).decode()
    public = k.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return pem, public


def keys(directory, token_url, topics):
    out, accounts = {}, {}
    relay_kid = secrets.token_hex(20)
    for name, kid, granted in [("relay", relay_kid, topics), ("denied", secrets.token_hex(20), [])]:
        pem, public = keypair()
        email = f"{name}@relay-test.iam.gserviceaccount.com"
        accounts[email] = {"kid": kid, "public_key": public, "topics": granted}
        out[name] = {"client_email": email, "private_key": pem, "kid": kid}
    wrong_pem, _ = keypair()
    out["wrong"] = {"client_email": out["relay"]["client_email"], "private_key": wrong_pem, "kid": relay_kid}
    for name, a in out.items():
        key = {
            "type": "service_account",
            "project_id": "relay-test",
            "private_key_id": a["kid"],
            "private_key": a["private_key"],
            "client_email": a["client_email"],
            "client_id": "1",
            "token_uri": token_url,
        }
        with open(os.path.join(directory, f"{name}.json"), "w") as f:
            json.dump(key, f)
    with open(os.path.join(directory, "accounts.json"), "w") as f:
        json.dump(accounts, f)
    print(json.dumps(out))


def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        sys.exit(f"{method} {url}: {e.code} {e.read()!r}")


def setup(emulator, topic, subscription):
    call("PUT", f"{emulator}/v1/{topic}")
    call("PUT", f"{emulator}/v1/{subscription}", {"topic": topic, "enableMessageOrdering": True})
    print("{}")


def drain(emulator, subscription):
    out = []
    while True:
        got = call("POST", f"{emulator}/v1/{subscription}:pull",
                   {"maxMessages": 100, "returnImmediately": True}).get("receivedMessages", [])
        if not got:
            break
        for r in got:
            m = r["message"]
            out.append({
                "data_b64": m.get("data", ""),
                "attributes": m.get("attributes", {}),
                "ordering_key": m.get("orderingKey"),
                "message_id": m.get("messageId"),
            })
        call("POST", f"{emulator}/v1/{subscription}:acknowledge", {"ackIds": [r["ackId"] for r in got]})
    print(json.dumps(out))


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "keys":
        keys(args[0], args[1], args[2:])
    elif command == "setup":
        setup(*args)
    elif command == "drain":
        drain(*args)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
