import os

from flask import Flask, request

from relay_verify import DuplicateError, MemorySeenStore, Verifier, VerifyError

# One or more keys, space-separated: during a rotation, the new and the old.
verifier = Verifier(os.environ["RELAY_WEBHOOK_KEYS"].split())
seen = MemorySeenStore()  # one process; use a shared SeenStore with several

app = Flask(__name__)


@app.post("/webhooks/relay")
def relay_webhook():
    # The raw bytes, exactly as received: never a re-serialized request.json.
    body = request.get_data()
    try:
        verifier.verify_once(request.headers, body, seen)
    except DuplicateError:
        return "", 200  # already processed: a 2xx stops Relay's retries
    except VerifyError as e:
        return e.code, 401  # Relay retries 401 (e.g. while a new key deploys)
    event = request.get_json(force=True)  # authentic: now parse it
    print(event["type"], event["id"])
    return "", 204
