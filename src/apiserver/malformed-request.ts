/**
 * The answer to an HTTP/1.1 request node's parser refuses before any handler sees it (bytes outside
 * ASCII in the request line, such as an unescaped emoji in the path; a control character in a
 * header; a header section past the size limit; a request line that never completes): a `Status`
 * like every other refusal of this server, written straight to the socket, and then the connection
 * is closed (where a malformed request ends cannot be known, so nothing after it can be read).
 * Node's own answer is a bare `400 Bad Request` with no body; over HTTP/2 the same request is
 * parsed and answered by the API (a 404 or 400 Status), so clients see one form either way.
 */
import type { Duplex } from 'node:stream';
import { stringifyJson } from '../api/json-walk.js';
import { statusObject } from '../api/status.js';

/** The error node's HTTP/1.1 parser raises (llhttp's code and reason). */
export interface ParserError extends Error {
  code?: string;
  reason?: string;
}

const PHRASES: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The whole HTTP/1.1 response (status line, headers, Status body) for a request the parser refused. */
export function malformedRequestResponse(err: ParserError): Buffer {
  const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const why = (err.reason ?? err.message ?? '').replace(/^Parse Error: /, '');
  const message =
    code === 431
      ? 'the request headers are larger than the server accepts (node --max-http-header-size); send fewer or shorter headers'
      : code === 408
        ? 'the request headers did not arrive in time'
        : `the HTTP/1.1 request could not be parsed (${err.code ?? 'unknown'}: ${why || 'malformed'}): percent-encode bytes outside ASCII in the path and query, and send no control characters in headers`;
  const body = Buffer.from(`${stringifyJson(statusObject('Failure', code, message, code === 408 ? 'Timeout' : 'BadRequest'))}\n`);
  const head = `HTTP/1.1 ${code} ${PHRASES[code]}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/**
 * The server's `clientError` listener: answers with `malformedRequestResponse` unless the peer is
 * gone or a response on this connection has already begun (a second status line would corrupt
 * it), then closes the connection.
 */
export function answerMalformedRequest(err: ParserError, socket: Duplex): void {
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || inProgress) {
    socket.destroy();
    return;
  }
  socket.end(malformedRequestResponse(err));
}
