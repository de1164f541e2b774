// A test webhook server's half of an AdmissionReview: the answer to a review, with its uid.
import type { ServerResponse } from 'node:http';

type Loose = Record<string, any>;

/** Answers `review` (as received) with `response` (allowed, patch, warnings ...), in the review's own apiVersion. */
export function answerReview(res: ServerResponse, review: Loose, response: Loose): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review['apiVersion'], kind: 'AdmissionReview', response: { uid: review['request']['uid'], ...response } }));
}
