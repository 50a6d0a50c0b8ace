import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './addresses.js';
import {
  deliveryProblem,
  holdKey,
  originKey,
  targetKey,
  urlProblem,
  type TargetRules,
} from './targets.js';

const STRICT: TargetRules = { allowPrivate: false, allowHttp: false };

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:81a::200e'])(
    'when the address is %s, then it is public',
    (address) => expect(isPublicAddress(address)).toBe(true),
  );

  it.each([
    ['loopback', '127.0.0.1'],
    ['private', '10.1.2.3'],
    ['cloud metadata', '169.254.169.254'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['unspecified', '0.0.0.0'],
    ['IPv6 loopback', '::1'],
    ['IPv6 unspecified', '::'],
    ['IPv4-compatible, dotted', '::127.0.0.1'],
    ['IPv4-compatible, hex', '::7f00:1'],
    ['IPv4-compatible of a public address', '::808:808'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped, hex', '::ffff:7f00:1'],
    ['IPv4-mapped of a public address', '::ffff:8.8.8.8'],
    ['IPv4-translated (RFC 6145)', '::ffff:0:7f00:1'],
    ['NAT64 well-known prefix', '64:ff9b::7f00:1'],
    ['NAT64 of a public address', '64:ff9b::808:808'],
    ['NAT64 local-use prefix', '64:ff9b:1::a00:1'],
    ['6to4', '2002:7f00:1::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['documentation', '2001:db8::1'],
    ['unique-local', 'fd00::1'],
    ['link-local', 'fe80::1'],
    ['multicast', 'ff02::1'],
    ['discard', '100::1'],
    ['not an address', 'example.com'],
  ])('when the address is %s (%s), then it is refused', (_, address) =>
    expect(isPublicAddress(address)).toBe(false),
  );
});

describe('urlProblem', () => {
  it('when http is not allowed, then only https passes', () => {
    expect(urlProblem('https://partner.example.com/hook', STRICT)).toBeNull();
    expect(urlProblem('http://partner.example.com/hook', STRICT)?.reason).toMatch(/https/);
    expect(urlProblem('ftp://partner.example.com/hook', STRICT)).not.toBeNull();
  });

  it('when WEBHOOK_ALLOW_HTTP or private targets are allowed, then http passes too', () => {
    const url = 'http://partner.example.com/hook';
    expect(urlProblem(url, { ...STRICT, allowHttp: true })).toBeNull();
    expect(urlProblem(url, { ...STRICT, allowPrivate: true })).toBeNull();
  });

  it.each(['', ':443', ':80', ':1024', ':8443', ':65535'])(
    'when the port is "%s", then it passes',
    (port) => expect(urlProblem(`https://partner.example.com${port}/hook`, STRICT)).toBeNull(),
  );

  it.each([':22', ':25', ':1', ':111', ':1023'])(
    'when the port is "%s", then it is refused naming it',
    (port) =>
      expect(urlProblem(`https://partner.example.com${port}/hook`, STRICT)?.reason).toContain(
        port.slice(1),
      ),
  );

  it('when the URL carries credentials, then it is refused', () => {
    expect(urlProblem('https://user:pass@partner.example.com/hook', STRICT)).not.toBeNull();
  });
});

describe('deliveryProblem', () => {
  it.each([
    'https://[::127.0.0.1]/hook',
    'https://[::7f00:1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[64:ff9b::a00:1]/hook',
    'https://127.0.0.1/hook',
    'https://8.8.8.8:22/hook',
    'http://8.8.8.8/hook',
  ])('when a stored target is %s, then delivery refuses it', (url) => {
    expect(deliveryProblem(new URL(url), STRICT)).toMatchObject({ code: 'EREFUSEDTARGET' });
  });

  it('when private targets are allowed, then a loopback http target is delivered to', () => {
    const rules = { ...STRICT, allowPrivate: true };
    expect(deliveryProblem(new URL('http://127.0.0.1:8080/hook'), rules)).toBeNull();
  });
});

describe('targetKey', () => {
  it('when two URLs reach the same endpoint, then they have the same key', () => {
    const key = targetKey('https://hooks.example.com/in');
    for (const same of [
      'https://HOOKS.Example.com/in',
      'https://hooks.example.com:443/in',
      'https://hooks.example.com./in/',
      'https://hooks.example.com/in?again=1#x',
      'https://hooks.example.com/%69n',
    ]) {
      expect(targetKey(same), same).toBe(key);
    }
    expect(targetKey('http://10.0.0.1:8080/x')).toBe(targetKey('http://0xa000001:8080/x'));
  });

  it('when the host, port or path differ, then the keys differ', () => {
    const key = targetKey('https://hooks.example.com/in');
    for (const other of [
      'https://hooks.example.org/in',
      'https://hooks.example.com:8443/in',
      'http://hooks.example.com/in',
      'https://hooks.example.com/In',
      'https://hooks.example.com/in/more',
    ]) {
      expect(targetKey(other), other).not.toBe(key);
    }
  });
});

describe('originKey', () => {
  it('when URLs differ only in path, scheme or spelling of the host and port, then the origin is the same', () => {
    const key = originKey('https://hooks.example.com/in');
    expect(key).toBe('hooks.example.com:443');
    for (const same of [
      'https://hooks.example.com/In',
      'https://hooks.example.com//in',
      'https://hooks.example.com/in;x',
      'https://HOOKS.example.com.:443/',
      'http://hooks.example.com:443/other',
    ]) {
      expect(originKey(same), same).toBe(key);
    }
    expect(originKey('https://bücher.example/')).toBe(originKey('https://xn--bcher-kva.example/'));
    expect(originKey('https://hooks.example.com:8443/in')).not.toBe(key);
    expect(originKey('http://hooks.example.com/in')).not.toBe(key);
  });

  it('when a hold is path-only, then its key is the endpoint; otherwise the origin', () => {
    expect(holdKey('https://hooks.example.com/in', true)).toBe(
      targetKey('https://hooks.example.com/in'),
    );
    expect(holdKey('https://hooks.example.com/in', false)).toBe('hooks.example.com:443');
  });
});
