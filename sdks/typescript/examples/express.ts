import express from "express";
import { DuplicateError, MemorySeenStore, Verifier, VerifyError } from "@relay/sdk";

// One or more keys, space-separated: during a rotation, the new and the old.
const verifier = new Verifier((process.env.RELAY_WEBHOOK_KEYS ?? "").split(/\s+/).filter(Boolean));
const seen = new MemorySeenStore(); // one process; use a shared SeenStore with several

export const app = express();

// express.raw() keeps the body as a Buffer, exactly as received. Mount it on
// this route (or before any express.json(), which would consume the body).
app.post("/webhooks/relay", express.raw({ type: "*/*" }), async (req, res) => {
  try {
    await verifier.verifyOnce(req.headers, req.body, seen);
  } catch (e) {
    if (e instanceof DuplicateError) {
      res.sendStatus(200); // already processed: a 2xx stops Relay's retries
      return;
    }
    if (e instanceof VerifyError) {
      res.status(401).send(e.code); // Relay retries 401 (e.g. while a new key deploys)
      return;
    }
    throw e;
  }
  const event = JSON.parse(req.body.toString("utf8")); // authentic: now parse it
  console.log(event.type, event.id);
  res.sendStatus(204);
});
