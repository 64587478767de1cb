import { defineScanner } from '../../core/plugin-api/index.ts';
import { certHostname } from './checks/cert-hostname.ts';
import { certSelfSigned } from './checks/cert-self-signed.ts';
import { certSignature } from './checks/cert-signature.ts';
import { certUntrusted } from './checks/cert-untrusted.ts';
import { certValidity } from './checks/cert-validity.ts';
import { certWeakKey } from './checks/cert-weak-key.ts';
import { hsts } from './checks/hsts.ts';
import { keyExchange } from './checks/key-exchange.ts';
import { protocolVersions } from './checks/protocol-versions.ts';
import { tls10Cbc } from './checks/tls10-cbc.ts';
import { weakCiphers } from './checks/weak-ciphers.ts';
import { acrossTlsServices, httpsOnly } from './across-tls-services.ts';

/**
 * TLS configuration and certificate analysis by real handshakes (see README.md). Each
 * check runs on the target's TLS port and, in scans that also run the port scanner, on
 * every TLS service it found (HSTS only on those that answered HTTPS).
 */
export default defineScanner({
  name: 'ssl',
  version: '1.0.0',
  apiVersion: '^1.5.0',
  description: 'TLS protocol versions, weak cipher suites, certificate problems, HSTS and key exchange, by real handshakes.',
  capabilities: ['net:outbound'],
  scanTypes: ['ssl'],
  assetTypes: ['domain', 'url', 'ip'],
  options: {
    extra_ca_pem: { type: 'string', description: 'Extra trusted CA certificates (PEM) for private PKIs, added to the bundled roots.' },
    handshake_timeout_ms: { type: 'integer', default: 5000, min: 100, max: 60000, description: 'Time limit of one TLS handshake.' },
    expiry_warning_days: { type: 'integer', default: 30, min: 1, max: 365, description: 'A certificate expiring within this many days is reported.' },
  },
  checks: [
    ...[protocolVersions, weakCiphers, tls10Cbc, certValidity, certSelfSigned, certUntrusted, certHostname, certWeakKey, certSignature].map((c) => acrossTlsServices(c)),
    acrossTlsServices(hsts, httpsOnly),
    acrossTlsServices(keyExchange),
  ],
});
