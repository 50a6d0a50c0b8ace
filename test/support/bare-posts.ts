// A bare webhook sender, the machine's baseline for a test that times deliveries: POSTs `count`
// bodies of `bytes` each to `<base>/bare/<n>`, `concurrency` at a time over kept connections, as
// the worker's sender does (api/webhooks/send.ts), and prints the milliseconds they took. Run as a
// process of its own, as the worker is: node --import tsx test/support/bare-posts.ts <base>
// <count> <concurrency> <bytes>.
import http from 'node:http';
import pLimit from 'p-limit';

const [base = '', count = '0', concurrency = '1', bytes = '0'] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const body = JSON.stringify({ type: 'bare.upsert', data: 'x'.repeat(Number(bytes)) });

function post(n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(`${base}/bare/${n}`),
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'webhook-id': `msg_bare_${n}`,
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,bare',
        },
      },
      (response) => {
        response.resume();
        response.on('end', resolve);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const limit = pLimit(Number(concurrency));
const started = performance.now();
await Promise.all(Array.from({ length: Number(count) }, (_, n) => limit(() => post(n))));
console.log(JSON.stringify({ ms: Math.round(performance.now() - started) }));
agent.destroy();
