import { connect, type AddressInfo, type Socket } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createGatewayServer } from './server.js';

const BOUNDS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1000 };

let close: (() => Promise<void>) | undefined;
afterEach(async () => close?.());

describe('createGatewayServer', () => {
  it('when a request arrives, then its request and response already have the app prototypes, and Express answers as usual', async () => {
    const app = express();
    app.get('/x/:id', (req, res) => {
      res.set('X-Seen', req.params.id).status(201).json({ id: req.params.id, ip: req.ip });
    });
    const server = createGatewayServer(app, BOUNDS);
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

  it('when HTTP_MAX_CONNECTIONS connections are open, then one more is closed unanswered while the open ones are served', async () => {
    const app = express();
    app.get('/ping', (_req, res) => res.send('pong'));
    const server = createGatewayServer(app, { ...BOUNDS, maxConnections: 2 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sockets: Socket[] = [];
    close = () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    };
    const { port } = server.address() as AddressInfo;
    /** A raw keep-alive connection; resolves with what the server sent until it closed or `ms`. */
    const open = async () => {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
      return socket;
    };
    const ask = (socket: Socket) =>
      new Promise<string>((resolve) => {
        let text = '';
        const done = () => resolve(text);
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('pong')) done();
        });
        socket.once('close', done);
        socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
      });

    const [first, second] = [await open(), await open()];
    expect(await ask(first)).toContain('200 OK');
    const third = await open();
    expect(await ask(third)).toBe('');
    expect(third.destroyed || third.readyState !== 'open').toBe(true);
    expect(await ask(second)).toContain('200 OK');
    expect(await ask(first)).toContain('200 OK');
  });
});
