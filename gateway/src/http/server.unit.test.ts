import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayServer } from './server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('createGatewayServer', () => {
  it('when a request arrives, then its request and response already have the app prototypes, and Express answers as usual', async () => {
    const app = express();
    app.get('/x/:id', (req, res) => {
      res.set('X-Seen', req.params.id).status(201).json({ id: req.params.id, ip: req.ip });
    });
    const server = createGatewayServer(app, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    const atBirth: unknown[] = [];
    // Runs before the app: what node created, before Express set any prototype.
    server.prependListener('request', (req, res) => {
      atBirth.push(Object.getPrototypeOf(req), Object.getPrototypeOf(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => server.close(() => resolve()));
    const { port } = server.address() as AddressInfo;

    const res = await fetch(`http://127.0.0.1:${port}/x/7`);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-seen')).toBe('7');
    expect(await res.json()).toEqual({ id: '7', ip: '127.0.0.1' });
    expect(atBirth).toEqual([app.request, app.response]);
    const head = await fetch(`http://127.0.0.1:${port}/x/8`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([201, '']);
  });
});
