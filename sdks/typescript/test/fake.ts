import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A local fake of Relay's API: answers a script, records every request. */
export class FakeRelay {
  readonly requests: Seen[] = [];
  readonly #answers: Array<{ status: number; body: unknown; headers: Record<string, string> }> = [];
  readonly #server: Server;
  url = "";

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        this.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
        const answer = this.#answers.shift();
        if (!answer) {
          res.writeHead(500).end();
          return;
        }
        const data = answer.body === undefined ? "" : JSON.stringify(answer.body);
        res.writeHead(answer.status, {
          "content-type": answer.status >= 400 ? "application/problem+json" : "application/json",
          ...answer.headers,
        });
        res.end(data);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  answer(status: number, body?: unknown, headers: Record<string, string> = {}): void {
    this.#answers.push({ status, body, headers });
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
