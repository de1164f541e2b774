/**
 * EventRateLimit (off by default; validating): limits how fast core/v1 Events are created or
 * updated, so a flood of events (a crash-looping workload, a misbehaving node) cannot swamp the
 * server. Established behaviour, kept:
 *
 * - the configuration is required: an `eventratelimit.admission.svc.io/v1alpha1` (or
 *   `eventratelimit.admission.k8s.io/v1alpha1`) `Configuration` with at least one limit, in
 *   --admission-control-config-file; without it the server does not start;
 * - each limit is a token bucket (`burst` tokens, refilled at `qps` per second, starting full) per
 *   key: `Server` one bucket for all events; `Namespace` per namespace, `User` per user name,
 *   `SourceAndObject` per event source and involved object, each in an LRU cache of `cacheSize`
 *   buckets (default 4096; an evicted bucket comes back full);
 * - every limit takes its token (a refusal by one still spends the others'), and any refusal
 *   answers 429 `Too many requests: limit reached on type <type> for key <key>` (several:
 *   the messages in brackets, comma-separated, as Go's aggregate error prints them);
 * - dry-run requests are not counted (nothing is stored).
 */
import { StatusError } from '../../api/status.js';
import type { AdmissionPlugin } from './chain.js';
import { pluginConfigError, typedConfiguration, type PluginConfiguration } from './config-file.js';

export const EVENT_RATE_LIMIT_GROUPS = ['eventratelimit.admission.svc.io', 'eventratelimit.admission.k8s.io'] as const;
export const LIMIT_TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];
const DEFAULT_CACHE_SIZE = 4096;

export interface EventLimit {
  type: LimitType;
  qps: number;
  burst: number;
  cacheSize: number;
}

/** Reads and validates the plugin's configuration (the established field errors, all of them). */
export function parseEventRateLimitConfiguration(cfg: PluginConfiguration | undefined): EventLimit[] {
  const required = `it needs a configuration in --admission-control-config-file (apiVersion: ${EVENT_RATE_LIMIT_GROUPS[0]}/v1alpha1, kind: Configuration, limits: [{type: Server, qps: 50, burst: 100}])`;
  if (!cfg) throw pluginConfigError('EventRateLimit', undefined, `limits: Invalid value: null: must not be empty; ${required}`);
  const doc = typedConfiguration(cfg, EVENT_RATE_LIMIT_GROUPS, 'v1alpha1', 'Configuration');
  const errs: string[] = [];
  for (const k of Object.keys(doc)) if (!['apiVersion', 'kind', 'limits'].includes(k)) errs.push(`${k}: unknown field`);
  const raw = doc['limits'];
  if (!Array.isArray(raw) || raw.length === 0) errs.push(`limits: Invalid value: ${JSON.stringify(raw ?? null)}: must not be empty`);
  const limits: EventLimit[] = [];
  (Array.isArray(raw) ? raw : []).forEach((l: unknown, i) => {
    const at = `limits[${i}]`;
    const r = (l !== null && typeof l === 'object' ? l : {}) as Record<string, unknown>;
    for (const k of Object.keys(r)) if (!['type', 'qps', 'burst', 'cacheSize'].includes(k)) errs.push(`${at}.${k}: unknown field`);
    const type = r['type'];
    if (!(LIMIT_TYPES as readonly unknown[]).includes(type)) errs.push(`${at}.type: Unsupported value: ${JSON.stringify(type ?? '')}: supported values: ${LIMIT_TYPES.map((t) => `"${t}"`).join(', ')}`);
    const int = (field: string): number => {
      const v = r[field] ?? 0;
      if (typeof v !== 'number' || !Number.isInteger(v)) {
        errs.push(`${at}.${field}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
        return 0;
      }
      return v;
    };
    const burst = int('burst');
    const qps = int('qps');
    const cacheSize = int('cacheSize');
    if (burst <= 0) errs.push(`${at}.burst: Invalid value: ${burst}: must be positive`);
    if (qps <= 0) errs.push(`${at}.qps: Invalid value: ${qps}: must be positive`);
    if (type !== 'Server' && cacheSize < 0) errs.push(`${at}.cacheSize: Invalid value: ${cacheSize}: must not be negative`);
    limits.push({ type: type as LimitType, qps, burst, cacheSize: cacheSize === 0 ? DEFAULT_CACHE_SIZE : cacheSize });
  });
  if (errs.length) throw pluginConfigError('EventRateLimit', cfg.source, errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
  return limits;
}

/** A token bucket: `burst` tokens to start with, `qps` more each second, never more than `burst`. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  tryAccept(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface EventFields {
  source?: { component?: string; host?: string };
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string };
}

/** One limit: its buckets by key, least recently used evicted first. */
class LimitEnforcer {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly limit: EventLimit,
    private readonly now: () => number,
  ) {}

  private keyOf(a: Parameters<AdmissionPlugin['handles']>[0]): string {
    switch (this.limit.type) {
      case 'Server':
        return '';
      case 'Namespace':
        return a.namespace;
      case 'User':
        return a.user.username;
      case 'SourceAndObject': {
        const e = (a.object ?? {}) as EventFields;
        const o = e.involvedObject ?? {};
        return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((s) => s ?? '').join('');
      }
    }
  }

  /** undefined when accepted, else the refusal's message. */
  accept(a: Parameters<AdmissionPlugin['handles']>[0]): string | undefined {
    const key = this.keyOf(a);
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
    } else {
      bucket = new TokenBucket(this.limit.qps, this.limit.burst, this.now);
      const max = this.limit.type === 'Server' ? 1 : this.limit.cacheSize;
      if (this.buckets.size >= max) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    this.buckets.set(key, bucket);
    return bucket.tryAccept() ? undefined : `limit reached on type ${this.limit.type} for key ${key}`;
  }
}

export function eventRateLimit(limits: readonly EventLimit[], now: () => number = Date.now): AdmissionPlugin {
  const enforcers = limits.map((l) => new LimitEnforcer(l, now));
  return {
    name: 'EventRateLimit',
    sideEffects: 'None',
    handles: (a) => a.def.group === '' && a.def.kind === 'Event' && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
    validate(a) {
      if (a.dryRun) return;
      const refusals = enforcers.map((e) => e.accept(a)).filter((m): m is string => m !== undefined);
      if (refusals.length === 0) return;
      const message = refusals.length === 1 ? refusals[0]! : `[${refusals.join(', ')}]`;
      throw new StatusError(429, 'TooManyRequests', `Too many requests: ${message}`);
    },
  };
}
