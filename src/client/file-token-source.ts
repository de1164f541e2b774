/**
 * A bearer token read from a file and read again once it is a minute old, as the established
 * clients do: a token file that something rotates (a projected service-account token, a secret
 * mount) is picked up without restarting the process. A failed re-read keeps the last good token.
 */
import { readFileSync } from 'node:fs';
import { systemClock, type Clock } from './clock.js';

/** How old a read token may get before the file is read again (the established clients' minute). */
export const TOKEN_FILE_MAX_AGE_MS = 60_000;

/** Where a transport gets the bearer token of each request (read per request, so it may rotate). */
export interface TokenSource {
  token(): string;
}

export class FileTokenSource implements TokenSource {
  private current: string;
  private readAt: number;

  /**
   * Reads the file at once: a missing or empty file is an error here, never later.
   * @param maxAgeMs default TOKEN_FILE_MAX_AGE_MS (60 s)
   */
  constructor(
    readonly path: string,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
    private readonly maxAgeMs = TOKEN_FILE_MAX_AGE_MS,
  ) {
    const first = this.read();
    if (!first) throw new Error(`token file ${path} is empty`);
    this.current = first;
    this.readAt = clock.now();
  }

  /** The token to send now (re-reads the file when the last read is `maxAgeMs` old). */
  token(): string {
    const now = this.clock.now();
    if (now - this.readAt >= this.maxAgeMs) {
      this.readAt = now;
      try {
        const next = this.read();
        if (next) this.current = next;
      } catch {
        // Rotation may replace the file non-atomically: keep the last good token, try next time.
      }
    }
    return this.current;
  }

  private read(): string {
    return readFileSync(this.path, 'utf8').trim();
  }
}
