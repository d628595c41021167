import os

from fastapi import FastAPI, Request, Response

from relay_verify import DuplicateError, MemorySeenStore, Verifier, VerifyError

# One or more keys, space-separated: during a rotation, the new and the old.
verifier = Verifier(os.environ["RELAY_WEBHOOK_KEYS"].split())
seen = MemorySeenStore()  # one process; use a shared SeenStore with several

app = FastAPI()


@app.post("/webhooks/relay")
async def relay_webhook(request: Request) -> Response:
    # The raw bytes, exactly as received: not a pydantic model of the body.
    body = await request.body()
    try:
        verifier.verify_once(request.headers, body, seen)
    except DuplicateError:
        return Response(status_code=200)  # already processed: a 2xx stops retries
    except VerifyError as e:
        return Response(e.code, status_code=401)  # Relay retries 401
    event = await request.json()  # authentic: now parse it
    print(event["type"], event["id"])
    return Response(status_code=204)
