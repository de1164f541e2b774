/** Times as API objects carry them: RFC 3339 with seconds (metav1.Time) or microseconds (MicroTime). */

/** RFC 3339 with seconds, as metav1.Time marshals (`2026-01-01T00:00:00Z`). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as MicroTime marshals (Lease spec times). */
export function rfc3339Micro(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
