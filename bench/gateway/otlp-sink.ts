// A local OTLP/HTTP receiver for the traced gateway of `npm run bench -- --only gateway`: accepts
// POST /v1/traces, reads the body to its end, discards it and answers 200 at once, so that the
// figure is what tracing costs the gateway, not what a collector does with the spans. Run as its
// own process by the benchmark: node --import tsx bench/gateway/otlp-sink.ts <port>.
import http from 'node:http';

const port = Number(process.argv[2]);

http
  .createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    req.resume();
    // An empty ExportTraceServiceResponse: every span accepted.
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
