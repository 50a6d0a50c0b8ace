// The soak's webhook subscribers: local partners answering at once, one of them with a 500 to a
// tenth of its deliveries (which the worker then retries). Each notes the webhook-ids it
// answered 2xx, so the end can check that every event the ledger counts as delivered arrived.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Receiver {
  url: string;
  /** webhook-id of every delivery answered 2xx. */
  accepted: Set<string>;
  /** Deliveries answered 500 on purpose. */
  refused(): number;
  close(): Promise<void>;
}

/** `onBody`: each delivery's body, as text (bench/upgrade.ts looks for its writes there). */
export async function startReceiver(
  failShare = 0,
  onBody?: (body: string) => void,
): Promise<Receiver> {
  const accepted = new Set<string>();
  let refused = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      onBody?.(Buffer.concat(chunks).toString('utf8'));
      const id = String(req.headers['webhook-id'] ?? '');
      // Every tenth (of failShare 0.1), evenly: a fixed share, whatever the order.
      if (failShare > 0 && ++requests % Math.round(1 / failShare) === 0) {
        refused += 1;
        res.writeHead(500).end();
        return;
      }
      accepted.add(id);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    accepted,
    refused: () => refused,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
