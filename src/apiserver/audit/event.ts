/**
 * The audit event (`audit.svc.io/v1` Event, EventList for batches) as the established server
 * writes it: field names, order and omissions of its v1 type, MicroTime timestamps
 * (`2006-01-02T15:04:05.000000Z`), `responseStatus` a Status whose `metadata` is always `{}`; the
 * legacy one-line text form of `--audit-log-format=legacy`; and the request's source addresses
 * (X-Forwarded-For, then X-Real-Ip, then the connection's address), as established.
 */
import { isIP } from 'node:net';
import type { AuditLevel, AuditStage } from './policy.js';

/** `--audit-log-version` / `--audit-webhook-version` values (ours first; the established spelling serializes with its name). */
export const EVENT_API_VERSIONS = ['audit.svc.io/v1', 'audit.k8s.io/v1'] as const;
export type EventApiVersion = (typeof EVENT_API_VERSIONS)[number];

export interface EventUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface ResponseStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code?: number;
}

/** One audit event; `requestObject`/`responseObject` are the decoded JSON values. */
export interface AuditEvent {
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: EventUser;
  impersonatedUser?: EventUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** Milliseconds since the epoch, with a fraction (microseconds). */
  requestReceivedTimestamp: number;
  stageTimestamp: number;
  annotations?: Record<string, string>;
}

/** Now, in milliseconds with microseconds in the fraction. */
export function microNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A MicroTime in the established form: RFC 3339, UTC, six fractional digits. */
export function formatMicroTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999_999, Math.floor((ms - Math.floor(ms / 1000) * 1000) * 1000));
  const iso = new Date(whole).toISOString(); // 2026-01-02T15:04:05.123Z
  return `${iso.slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

function userJson(u: EventUser): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u.username) out['username'] = u.username;
  if (u.uid) out['uid'] = u.uid;
  if (u.groups?.length) out['groups'] = u.groups;
  if (u.extra && Object.keys(u.extra).length) out['extra'] = u.extra;
  return out;
}

function objectRefJson(r: ObjectReference): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) {
    if (r[k]) out[k] = r[k];
  }
  return out;
}

function statusJson(s: ResponseStatus): Record<string, unknown> {
  const out: Record<string, unknown> = { metadata: {} };
  if (s.status) out['status'] = s.status;
  if (s.message) out['message'] = s.message;
  if (s.reason) out['reason'] = s.reason;
  if (s.details !== undefined && s.details !== null) out['details'] = s.details;
  if (s.code) out['code'] = s.code;
  return out;
}

/** The event as the object its JSON is made of (key order as established). */
export function eventObject(ev: AuditEvent, apiVersion: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'Event',
    apiVersion,
    level: ev.level,
    auditID: ev.auditID,
    stage: ev.stage,
    requestURI: ev.requestURI,
    verb: ev.verb,
    user: userJson(ev.user),
  };
  if (ev.impersonatedUser) out['impersonatedUser'] = userJson(ev.impersonatedUser);
  if (ev.sourceIPs?.length) out['sourceIPs'] = ev.sourceIPs;
  if (ev.userAgent) out['userAgent'] = ev.userAgent;
  if (ev.objectRef) out['objectRef'] = objectRefJson(ev.objectRef);
  if (ev.responseStatus) out['responseStatus'] = statusJson(ev.responseStatus);
  if (ev.requestObject !== undefined) out['requestObject'] = ev.requestObject;
  if (ev.responseObject !== undefined) out['responseObject'] = ev.responseObject;
  out['requestReceivedTimestamp'] = formatMicroTime(ev.requestReceivedTimestamp);
  out['stageTimestamp'] = formatMicroTime(ev.stageTimestamp);
  if (ev.annotations && Object.keys(ev.annotations).length) out['annotations'] = ev.annotations;
  return out;
}

/** One event as a JSON line (no newline). */
export function encodeEventJson(ev: AuditEvent, apiVersion: string): string {
  return JSON.stringify(eventObject(ev, apiVersion));
}

/** A batch as an EventList document. */
export function encodeEventList(events: readonly AuditEvent[], apiVersion: string): string {
  return JSON.stringify({ kind: 'EventList', apiVersion, metadata: {}, items: events.map((e) => eventObject(e, apiVersion)) });
}

/** Go's %q of a string (the legacy format quotes every value that way). */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function quotedList(list: readonly string[]): string {
  return list.map(goQuote).join(',');
}

/**
 * The established legacy line: `<received> AUDIT: id="..." stage="..." ip="..." method="..."
 * user="..." groups="..." as="..." asgroups="..." user-agent="..." namespace="..." uri="..."
 * response="..."` (no newline).
 */
export function encodeEventLegacy(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    username = ev.user.username;
    if (ev.user.groups?.length) groups = quotedList(ev.user.groups);
  }
  let as = '<self>';
  let asgroups = '<lookup>';
  if (ev.impersonatedUser) {
    as = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asgroups = quotedList(ev.impersonatedUser.groups);
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code ?? 0) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  // Go's RFC3339Nano: the fraction without trailing zeros (none at all when it is zero).
  const received = formatMicroTime(ev.requestReceivedTimestamp).replace(/\.(\d{6})Z$/, (_m, f: string) => (/^0+$/.test(f) ? 'Z' : `.${f.replace(/0+$/, '')}Z`));
  return (
    `${received} AUDIT: id=${goQuote(ev.auditID)} stage=${goQuote(ev.stage)} ip=${goQuote(ip)} method=${goQuote(ev.verb)} ` +
    `user=${goQuote(username)} groups=${goQuote(groups)} as=${goQuote(as)} asgroups=${goQuote(asgroups)} ` +
    `user-agent=${goQuote(ev.userAgent ?? '')} namespace=${goQuote(namespace)} uri=${goQuote(ev.requestURI)} response="${response}"`
  );
}

/** An address as Go prints it (an IPv4-mapped IPv6 address in its IPv4 form), or undefined if not an IP. */
function normalIp(s: string): string | undefined {
  let a = s.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  if (!isIP(a)) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return mapped ? (mapped[1] as string) : a.toLowerCase();
}

/**
 * The established source addresses: every valid address of X-Forwarded-For (in order), then
 * X-Real-Ip unless already listed, then the connection's address unless it is already the last
 * one (it cannot be spoofed, so it is always there).
 */
export function sourceIPs(headers: Record<string, string | string[] | undefined>, remoteAddress: string | undefined): string[] {
  const out: string[] = [];
  const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  const forwarded = first(headers['x-forwarded-for']);
  if (forwarded) {
    for (const part of forwarded.split(',')) {
      const ip = normalIp(part);
      if (ip) out.push(ip);
    }
  }
  const real = first(headers['x-real-ip']);
  if (real) {
    const ip = normalIp(real);
    if (ip && !out.includes(ip)) out.push(ip);
  }
  const remote = remoteAddress ? normalIp(remoteAddress) : undefined;
  if (remote && out[out.length - 1] !== remote) out.push(remote);
  return out;
}
