// Where a webhook may be sent: an http(s) URL whose every address is public. The check runs when
// a client subscribes and again inside each delivery's own DNS lookup, on the very addresses the
// connection then uses: a name that resolves elsewhere later (DNS rebinding) is refused there.
// Private targets are allowed only by WEBHOOK_ALLOW_PRIVATE_TARGETS (on-premise partners, tests).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

/**
 * Public unicast only: ipaddr.js names every special range (loopback, private, link-local and
 * with it the cloud metadata address 169.254.169.254, unique-local, carrier-grade NAT, 6to4,
 * Teredo, multicast, reserved…); an IPv4-mapped IPv6 address is judged as the IPv4 it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

export type TargetProblem = { reason: string };

/** What is wrong with the URL itself, before any lookup; null when nothing is. */
export function urlProblem(text: string): TargetProblem | null {
  if (text.length > MAX_URL_LENGTH) return { reason: `en fazla ${MAX_URL_LENGTH} karakter` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { reason: 'geçerli bir URL değil' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { reason: 'yalnızca https ve http adresleri' };
  }
  // Credentials in a URL end up in logs and in the delivery figures.
  if (url.username || url.password) return { reason: 'URL kullanıcı adı ve parola içeremez' };
  return null;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

const refused = (host: string, address: string) =>
  Object.assign(new Error(`${host} resolves to ${address}, which is not a public address`), {
    code: 'EREFUSEDTARGET',
  });

/** Every address of `host` (a name or a literal), as the delivery's connection would get them. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, found: LookupAddress[]) =>
      error ? reject(error) : resolve(found.map((a) => a.address)),
    ),
  );
}

/**
 * Checks a target when subscribing: the URL's form, then every address its host has now.
 * Returns the problem, or null when the target is acceptable.
 */
export async function targetProblem(
  text: string,
  allowPrivate: boolean,
): Promise<TargetProblem | null> {
  const problem = urlProblem(text);
  if (problem) return problem;
  const host = hostOf(new URL(text));
  let addresses: string[];
  try {
    addresses = await addressesOf(host);
  } catch {
    return { reason: `${host} çözümlenemedi` };
  }
  if (allowPrivate) return null;
  const hidden = addresses.find((address) => !isPublicAddress(address));
  return hidden ? { reason: `${host} genel olmayan bir adrese çıkıyor (${hidden})` } : null;
}

/**
 * The DNS lookup of a delivery's connection: the same addresses Node would connect to, refused
 * with EREFUSEDTARGET when one is not public. A literal address never reaches a lookup, so
 * `literalProblem` covers that case before the request.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const hidden = allowPrivate ? undefined : found.find((a) => !isPublicAddress(a.address));
      if (hidden) return callback(refused(hostname, hidden.address), '', 0);
      if (options.all) return (callback as unknown as AllCallback)(null, found);
      const [first] = found;
      if (!first)
        return callback(
          Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }),
          '',
          0,
        );
      callback(null, first.address, first.family);
    });
  };
}
type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** A literal address in the URL, which no lookup sees: refused here when it is not public. */
export function literalProblem(url: URL, allowPrivate: boolean): Error | null {
  const host = hostOf(url);
  if (allowPrivate || !isIP(host) || isPublicAddress(host)) return null;
  return refused(host, host);
}
