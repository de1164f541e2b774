/**
 * --goaway-chance (the established WithProbabilisticGoaway filter): each HTTP/2 request, with this
 * probability, ends its connection gracefully: the server sends GOAWAY once the request's answer is
 * written, requests already under way on the connection finish, and the client opens a new
 * connection (through its load balancer, to possibly another server) for the next ones. HTTP/1.1
 * and in-process requests are never affected. 0 (the default) turns it off; the flag allows at
 * most 0.02.
 */
import type { Http2ServerRequest } from 'node:http2';
import type { PipelineRequest, Response } from './http.js';
import { InProcessRequest } from './in-process-exchange.js';

export class ProbabilisticGoaway {
  constructor(
    private readonly chance: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** Decides for one request; when chosen, the connection is closed gracefully after the answer. */
  apply(req: PipelineRequest, res: Response): boolean {
    if (this.chance <= 0 || req instanceof InProcessRequest || req.httpVersionMajor !== 2) return false;
    if (this.random() >= this.chance) return false;
    const session = (req as Http2ServerRequest).stream?.session;
    if (!session) return false;
    // After the answer: close() sends GOAWAY and lets every open stream finish.
    (res as unknown as NodeJS.EventEmitter).once('finish', () => {
      if (!session.closed && !session.destroyed) session.close();
    });
    return true;
  }
}
