/**
 * The API `Status` object and the typed error that carries it.
 *
 * Every failure the API server returns is a `StatusError`; the HTTP layer writes `error.status` as the
 * body and `error.status.code` as the HTTP status. Nothing else turns into an error response.
 */

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Gone'
  | 'Expired'
  | 'Timeout'
  | 'ServerTimeout'
  | 'Forbidden'
  | 'Unauthorized'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'ServiceUnavailable'
  | 'InternalError';

/** One cause in `details.causes`, e.g. a field that failed validation. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/**
 * The one place a `Status` is built: its keys in the established order (Go's struct order, which its
 * JSON keeps) `kind, apiVersion, metadata, status, message, reason, details, code`, and empty ones
 * left out as its `omitempty` tags do, so a client comparing the body byte for byte (the Python
 * client's `create_from_yaml` reports the text) sees what the established server writes.
 */
export function statusObject(status: Status['status'], code: number, message?: string, reason?: StatusReason, details?: StatusDetails): Status {
  const s = { kind: 'Status', apiVersion: 'v1', metadata: {}, status } as Status;
  if (message) s.message = message;
  if (reason) s.reason = reason;
  const d = details && orderedDetails(details);
  if (d) s.details = d;
  s.code = code;
  return s;
}

/** StatusDetails in the established order `name, group, kind, uid, causes, retryAfterSeconds`, empty ones left out (undefined when nothing is left). */
function orderedDetails(d: StatusDetails): StatusDetails | undefined {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes?.length) out.causes = d.causes.map(orderedCause);
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** StatusCause in the established order `reason, message, field`. */
function orderedCause(c: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (c.reason) out.reason = c.reason;
  if (c.message) out.message = c.message;
  if (c.field) out.field = c.field;
  return out;
}

/** An error that becomes exactly one API `Status` response. */
export class StatusError extends Error {
  readonly status: Status;
  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    // No stack: a StatusError is an answer, not a fault (an unexpected error keeps its own stack
    // through toStatusError), and capturing one cost 2% of the server's CPU when it answered
    // 1,400 requests a second with 429 under overload.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'StatusError';
    this.status = statusObject('Failure', code, message, reason, details);
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): StatusReason {
    return this.status.reason as StatusReason;
  }
}

/** Identifies the object an error is about, for `details` (group is '' for the core group). */
export interface ObjectRef {
  group: string;
  resource: string;
  name?: string;
}

function qualified(ref: ObjectRef): string {
  return ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
}

function refDetails(ref: ObjectRef): StatusDetails {
  const d: StatusDetails = { kind: ref.resource };
  if (ref.name !== undefined) d.name = ref.name;
  if (ref.group) d.group = ref.group;
  return d;
}

export function notFound(ref: ObjectRef): StatusError {
  return new StatusError(404, 'NotFound', `${qualified(ref)} "${ref.name ?? ''}" not found`, refDetails(ref));
}

export function alreadyExists(ref: ObjectRef): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualified(ref)} "${ref.name ?? ''}" already exists`, refDetails(ref));
}

export function conflict(ref: ObjectRef, why: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(ref)} "${ref.name ?? ''}": ${why}`,
    refDetails(ref),
  );
}

/** A field-level validation failure (422). */
export interface FieldError {
  /** JSON path of the field, e.g. `metadata.name` or `spec.containers[0].image`. */
  field: string;
  /** Established cause types: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, FieldValueDuplicate, FieldValueTooLong, FieldValueForbidden. */
  type: string;
  message: string;
}

export function invalid(kind: string, name: string, group: string, errors: FieldError[]): StatusError {
  const summary = errors.map((e) => `${e.field}: ${e.message}`).join(', ');
  const details: StatusDetails = {
    name,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
  };
  if (group) details.group = group;
  return new StatusError(422, 'Invalid', `${kind} "${name}" is invalid: ${summary}`, details);
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

/** 410 Expired: an expired continue token (the client must restart the list). */
export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function forbidden(message: string, ref?: ObjectRef): StatusError {
  return new StatusError(403, 'Forbidden', message, ref ? refDetails(ref) : undefined);
}

export function methodNotAllowed(message: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', message);
}

export function notAcceptable(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

export function unsupportedMediaType(message: string): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', message);
}

export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', message);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

/** 504 for a resourceVersion that did not become available in time (carries Retry-After). */
export function timeoutTooLargeResourceVersion(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(504, 'Timeout', message, {
    retryAfterSeconds,
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
  });
}

export function timeout(message: string, retryAfterSeconds?: number): StatusError {
  return new StatusError(504, 'Timeout', message, retryAfterSeconds ? { retryAfterSeconds } : undefined);
}

export function serviceUnavailable(message: string, retryAfterSeconds?: number): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message, retryAfterSeconds ? { retryAfterSeconds } : undefined);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', message);
}

/** Any thrown value as a StatusError; unknown errors become 500 without leaking stack traces. */
export function toStatusError(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return internalError(`Internal error occurred: ${msg}`);
}

export function successStatus(details?: StatusDetails, code = 200): Status {
  return statusObject('Success', code, undefined, undefined, details);
}
