import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A certificate authority of the test's own and a server certificate it signed for 127.0.0.1 and
 * localhost, made by openssl in `dir`: the server's files (for its configuration) and the CA's
 * certificate (PEM, for a client to trust).
 */
export function makeCertificates(dir: string) {
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' })
  const key = ['-newkey', 'rsa:2048', '-nodes']
  openssl(
    'req',
    '-x509',
    ...key,
    '-days',
    '2',
    '-subj',
    '/CN=Parley Test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  )
  openssl('req', ...key, '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr'))
  writeFileSync(file('server.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n')
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  )
  return { cert: file('server.pem'), key: file('server.key'), ca: readFileSync(file('ca.pem'), 'utf8') }
}
