import type { FindingReport } from '../../core/plugin-api/index.ts';
import { REACH, reachOf, withReach, type Reach } from './reach.ts';
import type { ServiceInfo } from './service-info.ts';

/**
 * CVSS v3.1 base vectors of the findings below, written for a service reached on a
 * public address (AV:N); the attack vector of a finding follows where the service was
 * reached (reach.ts: AV:A internal, AV:L this host only). Severity follows from the score.
 */
export const VECTORS = {
  /** 9.8 critical: anyone who reaches it reads and writes everything (Redis without auth, a password-less database superuser, RabbitMQ's guest). */
  fullAccess: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  /** 7.3 high: an anonymous client is admitted to a message broker; what it may read and publish depends on the broker's ACLs. */
  anonymousBroker: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L',
  /** 5.3 medium: epmd names the Erlang nodes and their distribution ports, the first step of a cookie attack. */
  nodeNames: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
  /** 5.6 medium: a database's or broker's login is exposed (brute force, pre-authentication bugs). */
  serviceReachable: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:L',
  /** 5.9 medium: credentials and data cross the network in clear text. */
  cleartext: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
  /** 0.0 info: inventory of what listens. */
  openPort: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N',
} as const;

/** A database or broker bound to loopback: 0.0, what the remediation of `serviceReachable` asks for. */
const ON_THIS_HOST_ONLY = 'CVSS:3.1/AV:L/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:N';

const NAMES: Record<string, string> = { mysql: 'MySQL/MariaDB', postgresql: 'PostgreSQL', redis: 'Redis', nats: 'NATS', mqtt: 'MQTT broker', amqp: 'AMQP broker', epmd: 'Erlang port mapper (epmd)', 'erlang-dist': 'Erlang distribution port' };
const DATABASES = new Set(['mysql', 'postgresql', 'redis']);
/** Brokers, and the Erlang distribution port (a cookie away from running code on the node). */
const BROKERS = new Set(['nats', 'mqtt', 'amqp', 'erlang-dist']);

const accounts = (users: readonly string[]) => users.map((u) => (u === '' ? '(anonymous)' : u)).join(', ');

/** The access problem an identified service shows, if any: title, vector, description, remediation, location suffix. */
function accessProblem(info: ServiceInfo, location: string): Omit<FindingReport, 'location'> & { suffix: string } | null {
  const name = info.service === 'amqp' && info.details.product ? info.details.product : NAMES[info.service] ?? info.service;
  if ((info.service === 'redis' || info.service === 'nats' || info.service === 'mqtt') && info.auth === 'none') {
    const redis = info.service === 'redis';
    return {
      suffix: '#no-auth',
      title: redis ? 'Redis accepts commands without authentication' : `${name} accepts clients without credentials`,
      cvss_vector: redis ? VECTORS.fullAccess : VECTORS.anonymousBroker,
      description: redis
        ? `The Redis server on ${location} answered PING with PONG without any credentials: anyone who reaches it can read, change or delete every key, and often write files on the host (CONFIG SET dir).`
        : `The ${name} on ${location} admitted a client that sent no credentials (${info.service === 'nats' ? 'CONNECT then PING answered with PONG' : 'CONNECT answered with CONNACK 0'}). Unless ACLs restrict anonymous clients, anyone who reaches it can read every message and publish their own.`,
      remediation: redis
        ? 'Set requirepass or ACL users, enable protected-mode, bind Redis to localhost or a private interface, and firewall the port.'
        : info.service === 'nats'
          ? 'Configure authorization (users, nkeys or JWT accounts) and TLS; bind NATS to the interfaces its clients use.'
          : 'Set allow_anonymous false (Mosquitto) or the broker\'s equivalent, give each client its own credentials and ACLs, and use TLS (8883).',
      references: redis ? ['https://redis.io/docs/latest/operate/oss_and_stack/management/security/'] : info.service === 'nats' ? ['https://docs.nats.io/running-a-nats-service/configuration/securing_nats/auth_intro'] : ['https://mosquitto.org/documentation/authentication-methods/'],
      tags: [info.service, 'no-auth', redis ? 'database' : 'broker'],
    };
  }
  if (info.service === 'amqp' && info.openAccounts?.length) {
    return {
      suffix: '#default-credentials',
      title: `${name} accepts the default guest/guest login`,
      cvss_vector: VECTORS.fullAccess,
      description: `The AMQP broker on ${location} accepted the well-known default account guest with password guest (the login reached Connection.Tune${info.details.vhost ? `; virtual host ${info.details.vhost}` : ''}). On RabbitMQ guest is an administrator: anyone who reaches the broker reads, publishes and deletes messages and queues.`,
      remediation: 'Delete the guest user (rabbitmqctl delete_user guest) or change its password, keep loopback_users restricting it, and give each application its own user with limited permissions.',
      references: ['https://www.rabbitmq.com/docs/access-control#default-state'],
      tags: ['amqp', 'default-credentials', 'broker'],
    };
  }
  if ((info.service === 'mysql' || info.service === 'postgresql') && info.openAccounts?.length) {
    return {
      suffix: '#no-password',
      title: `${name} accepts password-less logins (${accounts(info.openAccounts)})`,
      cvss_vector: VECTORS.fullAccess,
      description: `The ${name} server on ${location} let these accounts in without any password: ${accounts(info.openAccounts)}. Administrator accounts such as root and postgres can read and change every database and often run commands on the host.`,
      remediation: info.service === 'postgresql'
        ? 'Replace trust entries in pg_hba.conf with scram-sha-256 (or peer for local sockets) and give every role a password.'
        : 'Give every account a password (ALTER USER … IDENTIFIED BY), drop anonymous accounts (mariadb-secure-installation), and restrict hosts.',
      references: [info.service === 'postgresql' ? 'https://www.postgresql.org/docs/current/auth-trust.html' : 'https://mariadb.com/kb/en/mariadb-secure-installation/'],
      tags: [info.service, 'no-password', 'database'],
    };
  }
  if (info.service === 'epmd') {
    const nodes = info.nodes ?? [];
    return {
      suffix: '#epmd',
      title: nodes.length ? `Erlang port mapper lists its nodes (${nodes.map((n) => n.name).join(', ')})`.slice(0, 200) : 'Erlang port mapper (epmd) answers name queries',
      cvss_vector: VECTORS.nodeNames,
      description: `epmd on ${location} answered a NAMES request with the Erlang nodes of the host and their distribution ports${nodes.length ? ` (${nodes.map((n) => `${n.name} on ${n.port}`).join(', ')})` : ''}. An attacker who reaches a distribution port and guesses its cookie runs code on the node.`,
      remediation: 'Bind epmd and the Erlang distribution to loopback or a cluster-only interface (ERL_EPMD_ADDRESS, inet_dist_use_interface), firewall 4369 and the distribution ports, and use a long random cookie.',
      references: ['https://www.erlang.org/doc/apps/erts/epmd_cmd.html'],
      tags: ['epmd', 'erlang', 'information-disclosure'],
    };
  }
  return null;
}

/** What an open port with this service means, as findings (location `host:port/tcp`), scored for where `host` is. */
export function exposureFindings(host: string, port: number, info: ServiceInfo): FindingReport[] {
  const reach: Reach = reachOf(host);
  const { phrase } = REACH[reach];
  const location = `${host}:${port}/tcp`;
  const evidence = {
    response_indicator: info.banner ?? info.details.reply ?? `${info.service} on ${port}/tcp`,
    service: info.service,
    port,
    reachable: phrase,
    ...info.details,
    ...(info.openAccounts?.length ? { open_accounts: info.openAccounts } : {}),
  };
  const out: FindingReport[] = [
    {
      title: `Open port ${port}/tcp (${info.service})`,
      cvss_vector: withReach(VECTORS.openPort, reach),
      description: `TCP port ${port} accepts connections${info.service !== 'unknown' ? ` and speaks ${info.service}` : ''}${info.banner ? `: "${info.banner}"` : ''}.`,
      remediation: 'Close ports that need not be reachable, or restrict them with a firewall.',
      evidence,
      tags: ['port-scan', info.service],
      location,
    },
  ];
  const problem = accessProblem(info, location);
  if (problem) {
    const { suffix, ...finding } = problem;
    out.push({ ...finding, title: `${finding.title}, ${phrase}`, cvss_vector: withReach(finding.cvss_vector, reach), evidence, location: `${location}${suffix}` });
  } else if (DATABASES.has(info.service) || BROKERS.has(info.service)) {
    const name = NAMES[info.service]!;
    const local = reach === 'local';
    out.push({
      title: `${name} ${phrase}`,
      cvss_vector: local ? ON_THIS_HOST_ONLY : withReach(VECTORS.serviceReachable, reach),
      description: local
        ? `A ${name} answers on ${location}, a loopback address: only programs on this host reach it, which is how such a service should be bound. Listed for the inventory.`
        : `A ${name} answers on ${location}, ${phrase}. ${DATABASES.has(info.service) ? 'Databases' : 'Message brokers and cluster ports'} should not accept connections from networks that do not need them: their login can be brute-forced and pre-authentication flaws exploited.`,
      remediation: local ? 'Nothing to do while it stays bound to loopback.' : 'Bind the service to a private interface or localhost and allow only its clients through a firewall.',
      evidence,
      tags: [info.service, DATABASES.has(info.service) ? 'database' : 'broker', 'exposure'],
      location: `${location}${DATABASES.has(info.service) ? '#database' : '#exposure'}`,
    });
  }
  if (info.service === 'telnet' || info.service === 'ftp') {
    const name = info.service === 'telnet' ? 'Telnet' : 'FTP';
    out.push({
      title: `${name} service transmits credentials in clear text, ${phrase}`,
      cvss_vector: withReach(VECTORS.cleartext, reach),
      description: `${name} on ${location} sends logins and data unencrypted; anyone on the path can read them.`,
      remediation: info.service === 'telnet' ? 'Disable telnet and use SSH.' : 'Replace FTP with SFTP or FTPS (explicit TLS, required).',
      evidence,
      tags: [info.service, 'cleartext'],
      location: `${location}#cleartext`,
    });
  }
  return out;
}
