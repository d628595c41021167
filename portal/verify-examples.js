// Verification examples for Relay's SDKs (crates/relay-verify,
// sdks/python, sdks/typescript), filled in with the endpoint's real public
// keys (every key that currently signs: during a rotation, both). Returned
// as plain text; the portal shows them as text.

function rustList(keys) {
  return keys.map((k) => `    ${JSON.stringify(k)},`).join("\n");
}

function list(keys) {
  return keys.map((k) => JSON.stringify(k)).join(", ");
}

export function verificationExamples(keys) {
  const rotating = keys.length > 1 ? " // the new key first, then the old one until the overlap ends" : "";
  return {
    rust: `// Cargo.toml: relay-verify = { path = "…/crates/relay-verify" }
use relay_verify::Verifier;

let verifier = Verifier::new([${rotating}
${rustList(keys)}
])?;
// headers: the request's http::HeaderMap; body: the raw bytes received.
match verifier.verify(&headers, &body) {
    Ok(()) => { /* handle the event */ }
    Err(e) => eprintln!("rejected: {}", e.code()), // e.g. "no_matching_signature"
}
`,
    python: `# pip install ./sdks/python   (relay-sdk)
from relay_verify import Verifier, VerifyError

verifier = Verifier([${list(keys)}])

try:
    verifier.verify(headers, raw_body)  # raw bytes, exactly as received
except VerifyError as e:
    print("rejected:", e.code)          # e.g. "no_matching_signature"
`,
    typescript: `// npm install ./sdks/typescript   (@relay/sdk)
import { Verifier, VerifyError } from "@relay/sdk";

const verifier = new Verifier([${list(keys)}]);

try {
  verifier.verify(req.headers, rawBody); // a Buffer, exactly as received
} catch (e) {
  if (e instanceof VerifyError) console.log("rejected:", e.code);
}
`,
  };
}
