// One HTTP try of one event: POST of the stored body, signed, through a lookup that refuses
// non-public addresses and a check of the URL's form (targets.ts), bounded by WEBHOOK_TIMEOUT_MS,
// redirects not followed. Its outcome is one of a few words, the figures and the answer's first
// 1,024 chars. The worker's deliveries and the gateway's test events (POST /webhooks/{id}/test)
// go through it alike.
import http from 'node:http';
import https from 'node:https';
import { deliveryProblem, guardedLookup, type TargetRules } from './targets.js';
import type { DeliveryOutcome } from './vocabulary.js';

export interface TryResult {
  outcome: DeliveryOutcome;
  statusCode: number | null;
  durationMs: number;
  /** The first 1,024 characters of the answer, or the error's message. */
  response: string | null;
  retryAfter: string | undefined;
  /** A network error's code (ECONNREFUSED, ENOTFOUND...), for failureWords. */
  errorCode?: string | undefined;
}

/** Network errors told in fixed words (failureWords), by their codes. */
const FAILURE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'name not resolved',
  ENODATA: 'name not resolved',
  EAI_AGAIN: 'name not resolved',
  ESERVFAIL: 'name not resolved',
  // The lookup's own time-out (addresses.ts): the name was not resolved in time.
  ETIMEOUT: 'name not resolved',
};

/**
 * A failed try in a few fixed words, for an answer a partner reads (a test event's): an error's
 * message names the address and port the connection went to, which would make the API a probe of
 * what is listening where. Null for a try that got an HTTP answer.
 */
export function failureWords(result: Pick<TryResult, 'outcome' | 'errorCode'>): string | null {
  switch (result.outcome) {
    case 'timeout':
      return 'timed out';
    case 'refused_target':
      return 'target not allowed';
    case 'network_error':
      return FAILURE_WORDS[result.errorCode ?? ''] ?? 'connection failed';
    case 'delivered':
    case 'http_error':
    case 'redirect':
    case 'gone':
      return null;
  }
}

export const RESPONSE_KEPT_CHARS = 1024;
/** Read past what is kept so that a short answer's connection can be reused; beyond, cut. */
const RESPONSE_READ_BYTES = 64 * 1024;

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>): Promise<TryResult>;
  close(): void;
}

function outcomeOf(status: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  if (status >= 300 && status < 400) return 'redirect';
  return 'http_error';
}

export function createSender(options: { timeoutMs: number; targets: TargetRules }): Sender {
  // Connections are kept between tries to one partner; a kept connection was checked by the
  // lookup when it opened, and its address cannot change afterwards.
  const lookup = guardedLookup(options.targets);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };

  function send(url: string, body: string, headers: Record<string, string>): Promise<TryResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    const refused = deliveryProblem(target, options.targets);
    if (refused) {
      return Promise.resolve({
        outcome: 'refused_target',
        statusCode: null,
        durationMs: 0,
        response: refused.message,
        retryAfter: undefined,
      });
    }
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<TryResult>((resolve) => {
      let settled = false;
      const finish = (result: Omit<TryResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const request = client.request(
        target,
        {
          method: 'POST',
          agent: agents[target.protocol as 'http:' | 'https:'],
          lookup,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'dashboard-partner-api-webhooks/1',
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read <= RESPONSE_READ_BYTES) chunks.push(chunk);
            else response.destroy();
          });
          const done = () => {
            const status = response.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_KEPT_CHARS);
            finish({
              outcome: outcomeOf(status),
              statusCode: status,
              response: text || null,
              retryAfter: response.headers['retry-after'],
            });
          };
          response.on('end', done);
          response.on('close', done);
          response.on('error', done);
        },
      );
      const timer = setTimeout(() => {
        finish({ outcome: 'timeout', statusCode: null, response: null, retryAfter: undefined });
        request.destroy();
      }, options.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        finish({
          outcome: error.code === 'EREFUSEDTARGET' ? 'refused_target' : 'network_error',
          statusCode: null,
          response: `${error.code ?? 'error'}: ${error.message}`.slice(0, RESPONSE_KEPT_CHARS),
          retryAfter: undefined,
          errorCode: error.code,
        });
      });
      request.end(body);
    });
  }

  return {
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
