import { readFileSync } from "node:fs";
import { createPrivateKey, sign } from "node:crypto";
import * as path from "node:path";

/** sdks/typescript, from dist/test. */
export const PACKAGE_ROOT = path.resolve(__dirname, "../..");
export const RELAY_VECTORS = path.resolve(PACKAGE_ROOT, "../vectors.json");
export const STANDARD_VECTORS = path.resolve(PACKAGE_ROOT, "../../testdata/standard-webhooks.json");

export function load(file: string): any {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** Signs like Relay, with the vectors' `ed_a` test key (v1a). */
export class Signer {
  readonly publicKey: string;
  readonly otherPublicKey: string;
  readonly #seed: Buffer;
  readonly #pub: Buffer;

  constructor(vectors: any) {
    const pair = vectors.signing_keys.ed_a;
    const raw = Buffer.from(pair.signing_key.slice("whsk_".length), "base64");
    this.#seed = raw.subarray(0, 32);
    this.#pub = raw.subarray(32);
    this.publicKey = pair.verification_key;
    this.otherPublicKey = vectors.signing_keys.ed_b.verification_key;
  }

  headers(webhookId: string, body: Buffer, ts: number = Math.floor(Date.now() / 1000)): Record<string, string> {
    const key = createPrivateKey({
      key: { kty: "OKP", crv: "Ed25519", d: this.#seed.toString("base64url"), x: this.#pub.toString("base64url") },
      format: "jwk",
    });
    const content = Buffer.concat([Buffer.from(`${webhookId}.${ts}.`), body]);
    return {
      "webhook-id": webhookId,
      "webhook-timestamp": String(ts),
      "webhook-signature": `v1a,${sign(null, content, key).toString("base64")}`,
    };
  }
}
