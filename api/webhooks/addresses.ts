// The addresses a webhook target may reach, and how a target's name is resolved (decision 0012).
import { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Global unicast IPv6 (RFC 4291): everything outside it is special or not routed. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Public unicast only: ipaddr.js names every special range (loopback, private, link-local and
 * with it the cloud metadata address 169.254.169.254, unique-local, carrier-grade NAT, 6to4,
 * Teredo, multicast, reserved…). An IPv6 address must also be global unicast (2000::/3), which
 * refuses every form that carries an IPv4 address (IPv4-mapped, IPv4-compatible `::7f00:1`,
 * NAT64 `64:ff9b::/96`): what those reach depends on translators, and a public IPv4 target can
 * be written as itself.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/** Bound on resolving one target's name, whatever the servers do. */
export const RESOLVE_BOUND_MS = 2000;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Every A and AAAA address of `host`, from DNS through c-ares on the event loop: dns.lookup
 * would run getaddrinfo on libuv's thread pool, which scrypt (token checks) shares, so a slow or
 * silent name server would hold up every token request. Bounded by RESOLVE_BOUND_MS. `servers`
 * replaces the system's name servers (tests use one of their own).
 */
export async function resolveHost(
  host: string,
  servers?: readonly string[],
): Promise<ResolvedAddress[]> {
  // One resolver per lookup: cancel() ends every query of its resolver, never another lookup's.
  const resolver = new Resolver({ timeout: 700, tries: 2 });
  if (servers) resolver.setServers(servers);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      resolver.cancel();
      reject(Object.assign(new Error(`${host}: DNS timed out`), { code: 'ETIMEOUT' }));
    }, RESOLVE_BOUND_MS);
  });
  try {
    const [v4, v6] = await Promise.race([
      Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]),
      bound,
    ]);
    const found: ResolvedAddress[] = [
      ...(v4.status === 'fulfilled'
        ? v4.value.map((address) => ({ address, family: 4 as const }))
        : []),
      ...(v6.status === 'fulfilled'
        ? v6.value.map((address) => ({ address, family: 6 as const }))
        : []),
    ];
    if (found.length > 0) return found;
    const failure = [v4, v6].find((r) => r.status === 'rejected');
    throw failure?.reason ?? Object.assign(new Error(`${host}: no address`), { code: 'ENOTFOUND' });
  } finally {
    clearTimeout(timer);
  }
}
