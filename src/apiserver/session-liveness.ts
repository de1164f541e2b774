/**
 * HTTP/2 session liveness: the server ends HTTP/2 sessions whose client is gone, with every stream
 * on them (their watches end and their memory is freed). Two rules:
 *
 * - A session whose peer sent GOAWAY gets `timeoutMs` to finish its open streams, then is
 *   destroyed. The peer opens no more streams, and the sessions we found stuck were these: under
 *   load (1,200 HTTP/1.1 clients beside 400 watch-lists on 8 HTTP/2 sessions) the clients destroyed
 *   their sessions (GOAWAY, then close), the server read the GOAWAY and began closing, waiting for
 *   its open streams, which were watches and never end by themselves; and Node's session had
 *   stopped reading its socket while one of its own writes was in progress, so it never saw the
 *   close either: the socket sat in CLOSE_WAIT with the client's last bytes unread, and 50 watches a
 *   session kept their queued frames (16 MiB in all) until their own timeout, 30 to 60 minutes later.
 * - Every `intervalMs` each other session is PINGed; one that has not answered within `timeoutMs`
 *   is destroyed. A session that reads nothing does not answer either. A live client's HTTP/2 stack
 *   answers PINGs by itself, however slowly its application reads (flow control holds DATA, not
 *   PING), as the established clients' own PINGs (client-go: 30 s of read idleness, 15 s to answer)
 *   rely on.
 *
 * A session the server itself closes (--goaway-chance) is left to finish its streams: its client
 * is still there, and Node does not PING a closing session.
 *
 * Contract: timers unref'd and cleared when the session closes; at most one PING outstanding; a
 * PING that fails counts as unanswered; `onDead` is called once per session destroyed here.
 */
import type { Http2Session } from 'node:http2';

export interface SessionLivenessOptions {
  /** Time between PINGs (default 30 s). */
  intervalMs?: number;
  /** Time a PING may go unanswered, and a session its peer closed may take to finish its streams, before it is destroyed (default 15 s). */
  timeoutMs?: number;
  /** Called when a session is destroyed here (for a log line). */
  onDead?: (session: Http2Session) => void;
}

export const SESSION_PING_INTERVAL_MS = 30_000;
export const SESSION_PING_TIMEOUT_MS = 15_000;

export function watchSessionLiveness(session: Http2Session, opts: SessionLivenessOptions = {}): void {
  const intervalMs = opts.intervalMs ?? SESSION_PING_INTERVAL_MS;
  const timeoutMs = opts.timeoutMs ?? SESSION_PING_TIMEOUT_MS;
  let deadline: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(ticker);
    clearTimeout(deadline);
    deadline = undefined;
  };
  /** Destroys the session `timeoutMs` from now unless cleared. */
  const endAfterTimeout = () => {
    deadline = setTimeout(() => {
      deadline = undefined;
      if (session.destroyed) return;
      opts.onDead?.(session);
      session.destroy();
    }, timeoutMs);
    deadline.unref();
  };
  session.once('goaway', () => {
    stop();
    if (!session.destroyed) endAfterTimeout();
  });
  const ticker = setInterval(() => {
    if (session.destroyed || session.closed) return; // closed: by the peer (its own deadline) or by us
    if (deadline) return; // the last PING is still unanswered: its deadline decides
    endAfterTimeout();
    const answered = (err: Error | null) => {
      if (err) return; // failed: the deadline decides
      clearTimeout(deadline);
      deadline = undefined;
    };
    let sent = false;
    try {
      sent = session.ping(answered);
    } catch {
      return; // refused outright: the deadline decides
    }
    if (!sent) {
      // Too many PINGs in flight at the protocol level: try again next interval.
      clearTimeout(deadline);
      deadline = undefined;
    }
  }, intervalMs);
  ticker.unref();
  session.once('close', stop);
}
