/**
 * The request and response shapes the `/debug/...` JSON handlers of the components use (the
 * scheduler's why-pending, the controllers' lifecycles, the cloud's objects), and how they answer:
 * node's http and http2 compatibility objects both fit, so one handler serves either listener.
 */

/** What a debug handler reads of a request. */
export interface DebugHttpRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
}

/** What a debug handler uses of a response. */
export interface DebugHttpResponse {
  writeHead(code: number, headers?: Record<string, string>): unknown;
  end(chunk?: string): unknown;
}

/** Answers with `body` as indented JSON, never cached, never sniffed. */
export function sendDebugJson(res: DebugHttpResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}
