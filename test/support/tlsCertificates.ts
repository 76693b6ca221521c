import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Throwaway X.509 certificates made with the `openssl` command (node:crypto cannot sign one), in a
 * directory the test owns. Its own config file, so the machine's openssl.cnf changes nothing.
 */
const OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:gateway.airlock.test
authorityKeyIdentifier = keyid
`;
const VALID_DAYS = '2';

export interface TestCertificateAuthority {
  /** The CA's certificate, PEM: what a trust store holds. */
  certPem: string;
  certPath: string;
  keyPath: string;
}

export interface TestServerCertificate {
  /** PEM, for https.createServer. */
  key: string;
  /** The server's certificate alone, PEM: the CA is not sent, as many servers send none above an intermediate. */
  cert: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function configPath(dir: string): string {
  const file = path.join(dir, 'openssl-test.cnf');
  writeFileSync(file, OPENSSL_CONFIG);
  return file;
}

function newKey(dir: string, name: string): string {
  const keyPath = path.join(dir, `${name}.key`);
  openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', keyPath]);
  return keyPath;
}

/** A self-signed root CA named `name`. */
export function makeCertificateAuthority(dir: string, name: string): TestCertificateAuthority {
  const keyPath = newKey(dir, name);
  const certPath = path.join(dir, `${name}.pem`);
  const config = configPath(dir);
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    keyPath,
    '-subj',
    `/CN=${name}`,
    '-days',
    VALID_DAYS,
    '-config',
    config,
    '-extensions',
    'ca',
    '-out',
    certPath,
  ]);
  return { certPem: readFileSync(certPath, 'utf8'), certPath, keyPath };
}

/** A certificate for 127.0.0.1, and for the gateway name test/support/tinyproxy.ts resolves, signed by `ca`. */
export function issueServerCertificate(dir: string, ca: TestCertificateAuthority, name: string): TestServerCertificate {
  const keyPath = newKey(dir, name);
  const requestPath = path.join(dir, `${name}.csr`);
  const certPath = path.join(dir, `${name}.pem`);
  const config = configPath(dir);
  openssl(dir, ['req', '-new', '-key', keyPath, '-subj', '/CN=127.0.0.1', '-config', config, '-out', requestPath]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    requestPath,
    '-CA',
    ca.certPath,
    '-CAkey',
    ca.keyPath,
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-days',
    VALID_DAYS,
    '-extfile',
    config,
    '-extensions',
    'server',
    '-out',
    certPath,
  ]);
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
}
