// The baseline: a bare node:http + pg server answering the benchmark's endpoints from the same
// database with the same JSON, no framework, no authentication, no limits. Run as its own process
// by the benchmark: node --import tsx bench/gateway/baseline-server.ts <port>, DATABASE_URL set.
import http from 'node:http';
import pg from 'pg';
import { ENDPOINTS } from './endpoints.js';

const port = Number(process.argv[2]);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const byPath = new Map(ENDPOINTS.filter((e) => e.baseline).map((e) => [e.path, e.baseline!]));

http
  .createServer((req, res) => {
    const answer = byPath.get(req.url ?? '');
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    answer(pool).then(
      (body) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      },
      () => res.writeHead(500).end(),
    );
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
