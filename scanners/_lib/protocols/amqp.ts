import type { AccessOptions, ServiceInfo } from '../service-info.ts';
import { SocketSession } from '../socket-session.ts';
import { amqpFramer, CONNECTION, frames, methodOf, parseClose, parseStart, PROTOCOL_HEADER, type Method } from './amqp-frames.ts';

/** The broker's well-known default account (RabbitMQ); accepted on loopback only unless reconfigured. */
const DEFAULT_ACCOUNT = { user: 'guest', password: 'guest' };

/** What an 8-byte "AMQP…" header sent back means: the versions the server speaks instead. */
export function headerVersion(data: Buffer): string | null {
  if (data.length < 8 || data.subarray(0, 4).toString('latin1') !== 'AMQP') return null;
  return data[4] === 0 ? `${data[5]}-${data[6]}-${data[7]}` : `${data[5]}.${data[6]}.${data[7]} (protocol id ${data[4]})`;
}

async function nextMethod(session: SocketSession): Promise<Method | Buffer> {
  for (;;) {
    const frame = await session.read(amqpFramer);
    if (frame.subarray(0, 4).toString('latin1') === 'AMQP') return frame;
    const method = methodOf(frame);
    if (method) return method;
  }
}

/**
 * Identifies an AMQP broker and checks its default account: the 0-9-1 protocol header,
 * Connection.Start (product, version, login mechanisms), and, with `authChecks` and
 * PLAIN offered, a login as guest/guest. A login that reaches Connection.Tune counts;
 * the check then opens the default virtual host and closes the connection with
 * Connection.Close, as a client leaving normally does (nothing is declared or
 * published). A server that refuses sends Connection.Close (403 ACCESS_REFUSED), which
 * is acknowledged. A server speaking another AMQP version answers with its own header.
 */
export async function probeAmqp(host: string, port: number, o: AccessOptions): Promise<ServiceInfo | null> {
  let session: SocketSession;
  try {
    session = await SocketSession.open(host, port, { timeoutMs: o.timeoutMs, signal: o.signal });
  } catch {
    return null;
  }
  let info: ServiceInfo | null = null;
  try {
    session.write(PROTOCOL_HEADER);
    const first = await nextMethod(session);
    if (Buffer.isBuffer(first)) {
      const version = headerVersion(first);
      return version ? { service: 'amqp', banner: `AMQP ${version}`, auth: 'unknown', details: { protocol: `AMQP ${version}` } } : null;
    }
    if (first.classId !== 10 || first.methodId !== CONNECTION.start) return null;
    const start = parseStart(first.args);
    const product = [start.properties.product, start.properties.version].filter(Boolean).join(' ');
    const details: Record<string, string> = { protocol: `AMQP ${start.version}`, mechanisms: start.mechanisms.join(' ') };
    for (const key of ['product', 'version', 'platform', 'cluster_name']) if (start.properties[key]) details[key] = start.properties[key]!.slice(0, 100);
    info = { service: 'amqp', banner: product || `AMQP ${start.version}`, auth: 'unknown', details };
    if (!o.authChecks || !start.mechanisms.includes('PLAIN')) return info;
    session.write(frames.startOk(DEFAULT_ACCOUNT.user, DEFAULT_ACCOUNT.password));
    const answer = await nextMethod(session);
    if (Buffer.isBuffer(answer)) return info;
    if (answer.classId === 10 && answer.methodId === CONNECTION.close) {
      const close = parseClose(answer.args);
      details.guest_login = `refused: ${close.code} ${close.text}`.slice(0, 200);
      session.write(frames.closeOk());
      return { ...info, auth: 'required' };
    }
    if (answer.classId !== 10 || answer.methodId !== CONNECTION.tune) return info;
    info = { ...info, auth: 'required', openAccounts: [DEFAULT_ACCOUNT.user] };
    details.guest_login = 'accepted';
    const channelMax = answer.args.readUInt16BE(0);
    const frameMax = answer.args.readUInt32BE(2);
    session.write(frames.tuneOk(channelMax, frameMax));
    session.write(frames.open('/'));
    const opened = await nextMethod(session);
    if (!Buffer.isBuffer(opened) && opened.methodId === CONNECTION.openOk) details.vhost = '/ (opened)';
    else if (!Buffer.isBuffer(opened) && opened.methodId === CONNECTION.close) {
      details.vhost = `/ refused: ${parseClose(opened.args).text}`.slice(0, 200);
      session.write(frames.closeOk());
      return info;
    }
    session.write(frames.close());
    await nextMethod(session).catch(() => undefined); // Close-Ok
    return info;
  } catch {
    return info;
  } finally {
    session.close();
  }
}
