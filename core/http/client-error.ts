import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { Server } from '@hapi/hapi';
import type { Logger } from '../logger.ts';

type ClientErrorHandler = (err: NodeJS.ErrnoException, socket: Socket) => void;

/** A complete HTTP/1.1 response carrying the one error body, for a socket no request owns. */
function errorResponse(status: number, reason: string, code: string, message: string): string {
  const body = JSON.stringify({ status: 'error', error: { code, message } });
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

function replyFor(err: NodeJS.ErrnoException): string | null {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const limit = `${Math.round(maxHeaderSize / 1024)} KiB`;
    return errorResponse(431, 'Request Header Fields Too Large', 'request_header_too_large', `The request line and headers exceed ${limit}.`);
  }
  if (err.code?.startsWith('HPE_')) return errorResponse(400, 'Bad Request', 'bad_request', 'The request is not valid HTTP/1.1.');
  return null;
}

/**
 * Node's parser rejects some requests before hapi sees a request at all (a head over
 * `maxHeaderSize`, a malformed request line); hapi then writes a bare `400` with no body.
 * This answers those in the one error shape instead. Errors on a socket that already
 * carries a response in progress (pipelining), and transport errors, stay hapi's.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  const listener = server.listener;
  const hapiHandlers = listener.listeners('clientError') as ClientErrorHandler[];
  listener.removeAllListeners('clientError');
  listener.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const reply = replyFor(err);
    const busy = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
    if (!reply || busy || !socket.writable) {
      for (const handler of hapiHandlers) handler(err, socket);
      return;
    }
    logger.debug({ code: err.code }, 'request refused by the HTTP parser');
    socket.end(reply);
  });
}
