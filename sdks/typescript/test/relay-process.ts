// A real `relay serve` for the end-to-end test, and an HTTPS receiver it
// delivers to: a test CA and a leaf for 127.0.0.1 made with the openssl
// command, the CA trusted by Relay through RELAY_OUTBOUND__EXTRA_CA_CERTS,
// loopback allowed on the receiver's port only. The binary is
// $RELAY_TEST_RELAY_BIN, or built with `cargo build -q --locked -p relay`
// into $CARGO_TARGET_DIR (default target/).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";

import { PACKAGE_ROOT } from "./helpers";

const REPO = path.resolve(PACKAGE_ROOT, "../..");

export function relayBinary(): string {
  if (process.env.RELAY_TEST_RELAY_BIN) return process.env.RELAY_TEST_RELAY_BIN;
  execFileSync("cargo", ["build", "-q", "--locked", "-p", "relay"], { cwd: REPO, stdio: "inherit" });
  return path.join(process.env.CARGO_TARGET_DIR || path.join(REPO, "target"), "debug", "relay");
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

export interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

export class Receiver {
  readonly ca: string;
  readonly #server: Server;
  readonly #waiting: Array<(d: Delivery) => void> = [];
  readonly #received: Delivery[] = [];
  port = 0;

  constructor(readonly dir: string) {
    openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
      "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=relay-sdk test CA",
      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
      "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1");
    writeFileSync(path.join(dir, "leaf.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\n");
    openssl(dir, "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
      "-out", "leaf.pem", "-days", "1", "-extfile", "leaf.ext");
    this.ca = path.join(dir, "ca.pem");
    this.#server = createServer(
      { cert: readFileSync(path.join(dir, "leaf.pem")), key: readFileSync(path.join(dir, "leaf.key")) },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
          const delivery = { headers, body: Buffer.concat(chunks) };
          res.writeHead(204).end();
          const waiter = this.#waiting.shift();
          if (waiter) waiter(delivery);
          else this.#received.push(delivery);
        });
      },
    );
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}/webhooks`;
  }

  /** The next delivery (or a rejection after `ms`). */
  next(ms: number): Promise<Delivery> {
    const ready = this.#received.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no delivery within ${ms} ms`)), ms);
      this.#waiting.push((d) => {
        clearTimeout(timer);
        resolve(d);
      });
    });
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

export class RelayServer {
  static readonly OPERATOR = "rop_sdk_typescript_3e8a1c5b7d9f0e2a4c6b";
  #child: ChildProcess | undefined;
  url = "";

  async start(dir: string, receiver: Receiver): Promise<this> {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (!k.startsWith("RELAY_") || k.startsWith("RELAY_TEST_")) env[k] = v;
    }
    Object.assign(env, {
      RELAY_OPERATOR_TOKEN: RelayServer.OPERATOR,
      RELAY_OUTBOUND__ALLOW_CIDRS: "127.0.0.1/32",
      RELAY_OUTBOUND__ALLOW_PORTS: String(receiver.port),
      RELAY_OUTBOUND__EXTRA_CA_CERTS: receiver.ca,
      RELAY_LOG: "warn",
    });
    const log = path.join(dir, "relay.log");
    const child = spawn(relayBinary(), ["serve", "--listen", "127.0.0.1:0", "--data-dir", path.join(dir, "data")], {
      env,
      stdio: ["ignore", "pipe", openSync(log, "w")],
    });
    this.#child = child;
    const lines = createInterface({ input: child.stdout! });
    this.url = await new Promise<string>((resolve, reject) => {
      lines.on("line", (line) => {
        if (line.startsWith("Relay listening on ")) resolve(line.slice("Relay listening on ".length).split(" ")[0]);
      });
      child.on("exit", () => reject(new Error(`relay serve did not start: ${readFileSync(log, "utf8")}`)));
    });
    return this;
  }

  async operator(method: string, p: string, body: unknown): Promise<any> {
    const res = await fetch(this.url + p, {
      method,
      headers: { authorization: `Bearer ${RelayServer.OPERATOR}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** A live API key of a new tenant (the operator's part, not the SDK's). */
  async apiKey(): Promise<string> {
    const tenant = await this.operator("POST", "/v1/tenants", { name: "acme" });
    return (await this.operator("POST", `/v1/tenants/${tenant.id}/api-keys`, { environment: "live" })).key;
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "relay-sdk-ts-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
