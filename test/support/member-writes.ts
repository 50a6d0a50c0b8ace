// Helpers for tests of POST /members and PUT /members/{id}: valid unique values and calls.
import { randomInt } from 'node:crypto';
import { getJson } from './gateway.js';

/** A mobile number in the stored form, unique enough for one test run. */
export const randomPhone = () => `05${String(randomInt(0, 1e9)).padStart(9, '0')}`;

/** A national id with valid check digits. */
export function randomTcNo(): string {
  const d = [randomInt(1, 10), ...Array.from({ length: 8 }, () => randomInt(0, 10))];
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!;
  const even = d[1]! + d[3]! + d[5]! + d[7]!;
  d.push((((odd * 7 - even) % 10) + 10) % 10);
  d.push(d.reduce((sum, digit) => sum + digit, 0) % 10);
  return d.join('');
}

export function writeCall(
  url: string,
  token: string,
  method: 'POST' | 'PUT',
  body: unknown,
  headers: Record<string, string> = {},
) {
  return getJson(url, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
}

export interface MemberApi {
  create(body: unknown, headers?: Record<string, string>): ReturnType<typeof getJson>;
  update(id: number, body: unknown, headers?: Record<string, string>): ReturnType<typeof getJson>;
  get(id: number): ReturnType<typeof getJson>;
}

/** The member endpoints of one gateway, as one client. */
export function memberApi(baseUrl: string, token: string): MemberApi {
  return {
    create: (body, headers) => writeCall(`${baseUrl}/api/v1/members`, token, 'POST', body, headers),
    update: (id, body, headers) =>
      writeCall(`${baseUrl}/api/v1/members/${id}`, token, 'PUT', body, headers),
    get: (id) =>
      getJson(`${baseUrl}/api/v1/members/${id}`, { headers: { authorization: `Bearer ${token}` } }),
  };
}
