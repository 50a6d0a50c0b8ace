// Where a webhook may be sent: an https URL (http only where operators allow it) on a usual port,
// whose every address is public. The check runs when a client subscribes and again inside each
// delivery's own lookup, on the very addresses the connection then uses: a name that resolves
// elsewhere later (DNS rebinding) is refused there. Refusals never name the address a name
// resolved to: partners would learn the API's view of its own network.
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, resolveHost } from './addresses.js';

export const MAX_URL_LENGTH = 2048;

export interface TargetRules {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: non-public addresses allowed, and with them http. */
  allowPrivate: boolean;
  /** WEBHOOK_ALLOW_HTTP: http allowed beside https. */
  allowHttp: boolean;
  /** Name servers to ask instead of the system's; tests pass one of their own. */
  dnsServers?: readonly string[] | undefined;
}

export type TargetProblem = { reason: string };

const usualPort = (port: number) => port === 80 || port === 443 || port >= 1024;

/** What is wrong with the URL itself, before any lookup; null when nothing is. */
export function urlProblem(text: string, rules: TargetRules): TargetProblem | null {
  if (text.length > MAX_URL_LENGTH) return { reason: `en fazla ${MAX_URL_LENGTH} karakter` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { reason: 'geçerli bir URL değil' };
  }
  const httpAllowed = rules.allowHttp || rules.allowPrivate;
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) {
    return {
      reason: httpAllowed ? 'yalnızca https ve http adresleri' : 'yalnızca https adresleri',
    };
  }
  // Credentials in a URL end up in logs and in the delivery figures.
  if (url.username || url.password) return { reason: 'URL kullanıcı adı ve parola içeremez' };
  // Low ports are other services' (SSH, SMTP...), never a web server's but 80 and 443.
  if (url.port && !usualPort(Number(url.port))) {
    return { reason: `${url.port} numaralı port kullanılamaz: 80, 443 ya da 1024-65535` };
  }
  return null;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

const defaultPort = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/**
 * The origin a URL reaches, as the operator's hold on a target covers it
 * (docs/decisions/0012-webhooks.md): host and port as URL parsing folds them (case, IDN, IPv4
 * forms, default port, a trailing dot), whatever the scheme: `http://host:443` is the endpoint
 * `https://host` is. Only for URLs urlProblem accepted.
 */
export function originKey(text: string): string {
  const url = new URL(text);
  return `${url.hostname.replace(/\.$/, '')}:${defaultPort(url)}`;
}

/**
 * The endpoint a URL reaches: its origin (originKey) and the path, its escapes decoded and
 * trailing slashes dropped. Query and fragment are left out: a partner would reach the same
 * endpoint by changing them. The narrower hold (`--path-only`) covers this much.
 */
export function targetKey(text: string): string {
  let path = new URL(text).pathname.replace(/\/+$/, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape stays as it is written.
  }
  return `${originKey(text)}${path}`;
}

/** What an operator's hold on `text` covers: its origin, or with `pathOnly` its endpoint. */
export const holdKey = (text: string, pathOnly: boolean) =>
  pathOnly ? targetKey(text) : originKey(text);

const refused = (host: string) =>
  Object.assign(new Error(`${host} is not a public address, or resolves to one that is not`), {
    code: 'EREFUSEDTARGET',
  });

/**
 * Checks a target when subscribing: the URL's form, then every address its host has now.
 * Returns the problem, or null when the target is acceptable.
 */
export async function targetProblem(
  text: string,
  rules: TargetRules,
): Promise<TargetProblem | null> {
  const problem = urlProblem(text, rules);
  if (problem) return problem;
  const host = hostOf(new URL(text));
  if (isIP(host)) {
    return rules.allowPrivate || isPublicAddress(host)
      ? null
      : { reason: `${host} genel bir adres değil` };
  }
  let addresses: string[];
  try {
    addresses = (await resolveHost(host, rules.dnsServers)).map((a) => a.address);
  } catch {
    return { reason: `${host} çözümlenemedi` };
  }
  if (rules.allowPrivate || addresses.every(isPublicAddress)) return null;
  return { reason: `${host} genel olmayan bir adrese çıkıyor` };
}

const familyOf = (family: number | string | undefined) =>
  family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : null;

type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/**
 * The DNS lookup of a delivery's connection: the addresses it will connect to, refused with
 * EREFUSEDTARGET when one is not public. A literal address never reaches a lookup, so
 * `deliveryProblem` covers that case before the request.
 */
export function guardedLookup(rules: TargetRules): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname, rules.dnsServers).then(
      (found) => {
        if (!rules.allowPrivate && !found.every((a) => isPublicAddress(a.address)))
          return callback(refused(hostname), '', 0);
        const family = familyOf(options.family);
        const wanted = family ? found.filter((a) => a.family === family) : found;
        const [first] = wanted;
        if (!first) {
          const none = Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' });
          return callback(none, '', 0);
        }
        if (options.all) return (callback as unknown as AllCallback)(null, wanted);
        callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * Checked before each delivery: the URL's form (a subscription may predate the rules) and a
 * literal address, which no lookup sees.
 */
export function deliveryProblem(url: URL, rules: TargetRules): Error | null {
  const problem = urlProblem(url.href, rules);
  if (problem) return Object.assign(new Error(problem.reason), { code: 'EREFUSEDTARGET' });
  const host = hostOf(url);
  if (rules.allowPrivate || !isIP(host) || isPublicAddress(host)) return null;
  return refused(host);
}
