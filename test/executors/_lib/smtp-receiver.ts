// A real SMTP server on loopback (the smtp-server package) that keeps every message it
// receives, for the notification executor's tests. Plain SMTP, or STARTTLS with a
// certificate from the shared test CA and required AUTH.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';

export interface ReceivedMail {
  from: string;
  recipients: string[];
  /** Header name (lower case) to its unfolded value. */
  headers: Record<string, string>;
  body: string;
  /** The user that authenticated, if any. */
  user: string | null;
  secure: boolean;
}

export interface SmtpReceiver {
  port: number;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

function parse(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: raw.slice(split + 4) };
}

export async function startSmtpReceiver(options: { starttls?: { user: string; password: string } } = {}): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const tls = options.starttls ? (await sharedTestCertificates()).server : null;
  const server = new SMTPServer({
    secure: false,
    logger: false,
    ...(tls ? { key: tls.keyPem, cert: tls.chainPem } : { disabledCommands: ['STARTTLS', 'AUTH'] }),
    authOptional: !options.starttls,
    onAuth(auth, _session, callback) {
      const ok = options.starttls && auth.username === options.starttls.user && auth.password === options.starttls.password;
      callback(ok ? null : new Error('Invalid username or password'), ok ? { user: auth.username } : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const { headers, body } = parse(Buffer.concat(chunks).toString('utf8'));
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          recipients: session.envelope.rcptTo.map((r) => r.address),
          headers,
          body,
          user: typeof session.user === 'string' ? session.user : null,
          secure: session.secure,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
