// HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS: a caller that opens a connection and sends
// its request slowly, or never finishes it, is cut off, whether or not it holds a token, so a few
// sockets cannot hold the gateway's connections for minutes (docs/decisions/0007).
import { connect, type Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { gatewayTest } from '../support/fixtures.js';
import { environmentVariables, startGatewayProcess } from '../support/processes.js';

const HEADERS_MS = 1500;
const REQUEST_MS = 2500;
/** How much later than its bound a connection may be closed. */
const SLACK_MS = 1000;

const it = gatewayTest({
  HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
  HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
});

/**
 * Opens a raw connection to `url`, writes `text` and never anything more; resolves with the
 * milliseconds until the gateway closed it, or null when it was still open after `waitMs`.
 */
async function closedAfter(url: string, text: string, waitMs: number): Promise<number | null> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve).once('error', reject);
  });
  const started = Date.now();
  socket.on('data', () => undefined).on('error', () => undefined);
  socket.write(text);
  try {
    return await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), waitMs);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(Date.now() - started);
      });
    });
  } finally {
    socket.destroy();
  }
}

const PARTIAL_HEAD =
  'GET /api/v1/members HTTP/1.1\r\nHost: gateway\r\nAccept: application/json\r\n';
const PARTIAL_BODY = [
  'POST /api/v1/auth/token HTTP/1.1',
  'Host: gateway',
  'Content-Type: application/json',
  'Content-Length: 100',
  '',
  '{"client_key": "ck_',
].join('\r\n');

describe('slow or unfinished requests', () => {
  it('when a request head is not complete within HTTP_HEADERS_TIMEOUT_MS, then the connection is closed', async ({
    gateway,
  }) => {
    const closed = await closedAfter(gateway.url, PARTIAL_HEAD, HEADERS_MS + SLACK_MS);
    expect(closed, 'the connection was still open').not.toBeNull();
    expect(closed).toBeGreaterThanOrEqual(HEADERS_MS - 100);
  });

  it('when a body is not complete within HTTP_REQUEST_TIMEOUT_MS, then the connection is closed', async ({
    gateway,
  }) => {
    const closed = await closedAfter(gateway.url, PARTIAL_BODY, REQUEST_MS + SLACK_MS);
    expect(closed, 'the connection was still open').not.toBeNull();
    // The head was complete: the head's bound did not end it.
    expect(closed).toBeGreaterThanOrEqual(REQUEST_MS - 100);
  });

  it('when the gateway runs as its own process (main.ts), then it applies the variables too', async ({
    env,
  }) => {
    const process = await startGatewayProcess({
      ...environmentVariables(env),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    });
    try {
      const closed = await closedAfter(process.url, PARTIAL_HEAD, HEADERS_MS + SLACK_MS);
      expect(closed, 'the connection was still open').not.toBeNull();
    } finally {
      // Awaited: no hook of the file's is left to give it time before the check for processes.
      process.kill();
      await process.exited;
    }
  }, 30_000);
});
