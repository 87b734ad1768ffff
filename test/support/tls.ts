import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './cli.js';

export interface TestCertificates {
  ca: string;
  cert: string;
  key: string;
}

/** A throwaway CA and a certificate it signed for 127.0.0.1, made with the openssl command. */
export function makeCertificates(): TestCertificates {
  const dir = tempDir('dueq-tls-');
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=dueq test CA',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.crt'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
  );
  writeFileSync(path('san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.crt'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    path('san.cnf'),
    '-out',
    path('server.crt'),
  );
  return { ca: path('ca.crt'), cert: path('server.crt'), key: path('server.key') };
}
