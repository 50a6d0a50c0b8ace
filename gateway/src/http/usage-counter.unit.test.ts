// The usage counter's bookkeeping alone: hours, cells and the script calls a flush sends.
import { describe, expect, it } from 'vitest';
import { cellsOf } from '#api/usage/usage-cells.js';
import {
  countRequest,
  flushCallsOf,
  operationOf,
  takeHours,
  type LiveCounts,
} from './usage-counter.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 28, 10, 15);
const fresh = (): LiveCounts => ({ hour: 0, hourEnd: 0, cells: new Map(), earlier: [] });
const fieldsOf = (args: (string | number)[]) => {
  const hash: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) hash[String(args[i])] = String(args[i + 1]);
  return hash;
};

describe('countRequest', () => {
  it('when requests of one client, status and route come in one hour, then they share a cell', () => {
    const counts = fresh();
    countRequest(counts, T, 7, 'GET', '/api/v1/members/:id', 200, 12, 300);
    countRequest(counts, T + 1000, 7, 'GET', '/api/v1/members/:id', 200, 40, 500);
    countRequest(counts, T + 2000, 7, 'GET', '/api/v1/members/:id', 404, 3, 90);
    const [cell] = [...counts.cells.values()];
    expect(counts.cells.size).toBe(2);
    expect([cell!.requests, cell!.bytesOut]).toEqual([2, 800]);
    expect(counts.hour).toBe(T - (T % HOUR));
  });

  it('when the hour turns, then the earlier hour is kept apart until taken', () => {
    const counts = fresh();
    countRequest(counts, T, 7, 'GET', null, 401, 1, 10);
    countRequest(counts, T + HOUR, 7, 'GET', null, 401, 1, 10);
    const hours = takeHours(counts);
    expect(hours.map((h) => [h.hour, h.cells.size])).toEqual([
      [T - (T % HOUR), 1],
      [T - (T % HOUR) + HOUR, 1],
    ]);
    expect(takeHours(counts).every((h) => h.cells.size === 0)).toBe(true);
  });
});

describe('flushCallsOf', () => {
  it('when hours are taken, then the calls carry every cell as the worker reads them back', () => {
    const counts = fresh();
    countRequest(counts, T, 7, 'GET', '/api/v1/members/:id', 200, 12, 300);
    countRequest(counts, T, 9, 'POST', '/api/v1/members', 201, 80, 0);
    const calls = flushCallsOf(takeHours(counts));
    expect(calls).toHaveLength(1);
    const cells = cellsOf(fieldsOf(calls[0]!.args));
    expect(cells.map((c) => [c.clientId, c.operation, c.status, c.requests, c.bytesOut])).toEqual(
      expect.arrayContaining([
        [7, 'GET /api/v1/members/{id}', 200, 1, 300],
        [9, 'POST /api/v1/members', 201, 1, 0],
      ]),
    );
  });

  it('when there are more fields than one call takes, then they are split, each call its own mark', () => {
    const counts = fresh();
    for (let client = 1; client <= 1500; client++)
      countRequest(counts, T, client, 'GET', null, 200, 1, 1);
    const calls = flushCallsOf(takeHours(counts));
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every((c) => c.args.length <= 2 * 2000)).toBe(true);
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    const requests = calls
      .flatMap((c) => cellsOf(fieldsOf(c.args)))
      .reduce((n, c) => n + c.requests, 0);
    expect(requests).toBe(1500);
  });
});

describe('operationOf', () => {
  it('when a route has parameters, then they are named as the OpenAPI document names them', () => {
    expect(operationOf('GET', '/api/v1/members/:id/packages')).toBe(
      'GET /api/v1/members/{id}/packages',
    );
  });
});
