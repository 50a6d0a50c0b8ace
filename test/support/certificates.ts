// Certificate authorities of a test's own, made with the openssl CLI: an authority, and server
// certificates it signs for 127.0.0.1 and localhost, to start private servers with TLS.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Authority {
  name: string;
  /** The authority's certificate (PEM): what a client is configured to trust. */
  certFile: string;
  keyFile: string;
}

/** A server certificate and its key, both PEM files. */
export interface ServerCertificate {
  certFile: string;
  keyFile: string;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function makeAuthority(dir: string, name: string): Authority {
  const certFile = join(dir, `${name}-ca.pem`);
  const keyFile = join(dir, `${name}-ca.key`);
  openssl(
    ['req', '-x509', ...EC_KEY, '-keyout', keyFile, '-out', certFile, '-days', '2'].concat([
      '-subj',
      `/CN=${name} test authority`,
    ]),
  );
  return { name, certFile, keyFile };
}

export function issueServerCertificate(
  authority: Authority,
  dir: string,
  name: string,
): ServerCertificate {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  const request = join(dir, `${name}.csr`);
  const extensions = join(dir, `${name}.ext`);
  writeFileSync(extensions, 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
  openssl([
    'req',
    '-new',
    ...EC_KEY,
    '-keyout',
    keyFile,
    '-out',
    request,
    '-subj',
    '/CN=localhost',
  ]);
  openssl(
    ['x509', '-req', '-in', request, '-CA', authority.certFile, '-CAkey', authority.keyFile].concat(
      ['-CAcreateserial', '-out', certFile, '-days', '2', '-extfile', extensions],
    ),
  );
  return { certFile, keyFile };
}
