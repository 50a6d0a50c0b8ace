// LEGACY_DATABASE_URL's TLS settings, in MySQL's own connection-URI parameters (as MySQL Shell
// reads them): `ssl-mode` DISABLED, VERIFY_CA or VERIFY_IDENTITY, and `ssl-ca`, the file of the
// authority the server's certificate must be signed by (the system's authorities without it).
// `ssl-ca` alone means VERIFY_IDENTITY. REQUIRED and PREFERRED, which encrypt without knowing
// whom to, are refused. Every legacy connection takes these: the pools, the tools and the
// binary-log client (docs/operations/configure.md, "Encrypted connections").
import { readFileSync } from 'node:fs';

const MODES = ['DISABLED', 'VERIFY_CA', 'VERIFY_IDENTITY'] as const;
type LegacySslMode = (typeof MODES)[number];

export interface LegacyTls {
  /** The authority's certificates (PEM); absent: the system's. */
  ca?: Buffer;
  /** VERIFY_IDENTITY: the certificate must also name the host connected to. */
  verifyIdentity: boolean;
}

function sslParametersOf(url: string): { mode: string | null; caFile: string | null } {
  const params = new URL(url).searchParams;
  return { mode: params.get('ssl-mode')?.toUpperCase() ?? null, caFile: params.get('ssl-ca') };
}

/** What is wrong with the URL's TLS parameters (config's check), or null. */
export function legacyTlsProblem(url: string): string | null {
  const { mode } = sslParametersOf(url);
  if (mode !== null && !MODES.includes(mode as LegacySslMode)) {
    return `ssl-mode must be one of ${MODES.join(', ')} (a connection is verified, or not encrypted)`;
  }
  return null;
}

/** The URL's TLS settings, or null when it asks for none; reads the `ssl-ca` file. */
export function legacyTlsOf(url: string): LegacyTls | null {
  const { mode, caFile } = sslParametersOf(url);
  const effective = mode ?? (caFile === null ? 'DISABLED' : 'VERIFY_IDENTITY');
  if (effective === 'DISABLED') return null;
  return {
    ...(caFile === null ? {} : { ca: readFileSync(caFile) }),
    verifyIdentity: effective === 'VERIFY_IDENTITY',
  };
}
