import type { FindingReport } from '../../core/plugin-api/index.ts';
import type { ServiceInfo } from './service-probes.ts';

/** CVSS v3.1 base vectors of the findings below (severity follows from the score). */
export const VECTORS = {
  /** 9.8 critical: anyone on the network reads and writes the data store. */
  unauthenticatedStore: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  /** 5.6 medium: a database's login is exposed to the network (brute force, pre-auth bugs). */
  databaseReachable: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:L',
  /** 5.9 medium: credentials and data cross the network in clear text. */
  cleartext: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
  /** 0.0 info: inventory of what listens. */
  openPort: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N',
} as const;

const DATABASES: Record<string, string> = { mysql: 'MySQL/MariaDB', postgresql: 'PostgreSQL', redis: 'Redis' };

/** What an open port with this service means, as findings (location `host:port/tcp`). */
export function exposureFindings(host: string, port: number, info: ServiceInfo): FindingReport[] {
  const location = `${host}:${port}/tcp`;
  const evidence = { response_indicator: info.banner ?? info.details.reply ?? `${info.service} on ${port}/tcp`, service: info.service, port, ...info.details };
  const out: FindingReport[] = [
    {
      title: `Open port ${port}/tcp (${info.service})`,
      cvss_vector: VECTORS.openPort,
      description: `TCP port ${port} accepts connections${info.service !== 'unknown' ? ` and speaks ${info.service}` : ''}${info.banner ? `: "${info.banner}"` : ''}.`,
      remediation: 'Close ports that need not be reachable, or restrict them with a firewall.',
      evidence,
      tags: ['port-scan', info.service],
      location,
    },
  ];
  if (info.service === 'redis' && info.auth === 'none') {
    out.push({
      title: 'Redis accepts commands without authentication',
      cvss_vector: VECTORS.unauthenticatedStore,
      description: `The Redis server on ${location} answered PING with PONG without any credentials: anyone who reaches it can read, change or delete every key, and often write files on the host (CONFIG SET dir).`,
      remediation: 'Set requirepass or ACL users, enable protected-mode, bind Redis to localhost or a private interface, and firewall the port.',
      evidence,
      references: ['https://redis.io/docs/latest/operate/oss_and_stack/management/security/'],
      tags: ['redis', 'no-auth', 'database'],
      location: `${location}#no-auth`,
    });
  } else if (DATABASES[info.service]) {
    out.push({
      title: `${DATABASES[info.service]} reachable from the network`,
      cvss_vector: VECTORS.databaseReachable,
      description: `A ${DATABASES[info.service]} server answers on ${location}. Databases should not accept connections from networks that do not need them: their login can be brute-forced and pre-authentication flaws exploited.`,
      remediation: 'Bind the database to a private interface or localhost and allow only the application hosts through a firewall.',
      evidence,
      tags: [info.service, 'database', 'exposure'],
      location: `${location}#database`,
    });
  }
  if (info.service === 'telnet' || info.service === 'ftp') {
    const name = info.service === 'telnet' ? 'Telnet' : 'FTP';
    out.push({
      title: `${name} service transmits credentials in clear text`,
      cvss_vector: VECTORS.cleartext,
      description: `${name} on ${location} sends logins and data unencrypted; anyone on the path can read them.`,
      remediation: info.service === 'telnet' ? 'Disable telnet and use SSH.' : 'Replace FTP with SFTP or FTPS (explicit TLS, required).',
      evidence,
      tags: [info.service, 'cleartext'],
      location: `${location}#cleartext`,
    });
  }
  return out;
}
