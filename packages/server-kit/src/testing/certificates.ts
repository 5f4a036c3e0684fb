import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** PEM files in a test's directory: a CA, and a certificate it signed for localhost and 127.0.0.1 with its key. */
export interface TestCertificates {
  ca: string;
  cert: string;
  key: string;
}

/** A CA and a server certificate made with openssl (P-256 keys: milliseconds), valid for a day, in `dir`. */
export function makeTestCertificates(dir: string, name = 'node'): TestCertificates {
  const ca = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca.key');
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  const quiet = { stdio: 'ignore' as const };
  const p256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'];
  execFileSync('openssl', ['req', '-x509', ...p256, '-keyout', caKey, '-out', ca, '-subj', '/CN=xfer test CA'], quiet);
  execFileSync('openssl', ['req', '-x509', ...p256, '-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-CA', ca, '-CAkey', caKey, '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'basicConstraints=CA:FALSE'], quiet);
  return { ca, cert, key };
}
