/** The HTTP code of the Status a function throws (0 when it returns): for rules that answer with a StatusError. */
import { StatusError } from '../../src/api/status.js';

export function statusCodeOf(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err.status.code;
    throw err;
  }
  return 0;
}
