/**
 * The projected volumes of a simulated node's pods (`volumes[i].projected`), filled as the
 * established node agent fills them, kept in memory (nothing runs that would read them from disk):
 *
 * - serviceAccountToken: a TokenRequest for the pod's service account, made as the node (its own
 *   identity `system:node:<name>` under --node-identity=impersonate, which NodeRestriction lets ask
 *   for tokens bound to its pods only), bound to the pod (kind Pod, name and uid), with the
 *   source's `audience` (empty: the API server's audiences) and `expirationSeconds`. Refreshed as
 *   the established token manager does: once 80% of its lifetime has passed, or when it is older
 *   than 24 hours, whichever is first; a failed request is retried (1 s doubling up to 30 s) while
 *   the pod is here. The pod going away (deleted or finished) stops the refreshes; its tokens stop
 *   working on the API server anyway, since they are bound to the pod's uid.
 * - configMap and secret: the named object's keys (all, or the listed `items`), read as the node
 *   (the Node authorizer lets it read what its pods reference); a missing optional object is empty.
 *   Read once, and again with every token refresh.
 * - downwardAPI: `metadata.namespace|name|uid`, `metadata.labels|annotations` (key="value" lines),
 *   `metadata.labels['k']`, `spec.nodeName`, `spec.serviceAccountName`, `status.hostIP|podIP`.
 *
 * `files(uid)` answers what each volume holds now, for the node-agent endpoint (svclet-server.ts),
 * which serves them only to users the API server allows `nodes/proxy` of the node.
 */
import type { Logger } from 'pino';
import type { Pod } from '../api/generated/kinds.js';
import type { Clock } from '../client/clock.js';
import type { ApiClient } from '../client/types.js';
import { resources } from '../client/typed.js';

/** The established refresh rule: at 80% of the lifetime, or after 24 h. */
export const REFRESH_FRACTION = 0.8;
export const MAX_TOKEN_AGE_MS = 24 * 3_600_000;
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const list = (v: unknown): Loose[] => (Array.isArray(v) ? v.map(rec) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** When a token issued at `issuedAt` that expires at `expiresAt` is due for a refresh. */
export function refreshAt(issuedAt: number, expiresAt: number): number {
  return Math.min(issuedAt + (expiresAt - issuedAt) * REFRESH_FRACTION, issuedAt + MAX_TOKEN_AGE_MS);
}

/** The value of a downward API field of `pod` (undefined: not one this node knows). */
export function downwardField(pod: Pod, fieldPath: string): string | undefined {
  const meta = pod.metadata;
  const pairs = (m: Record<string, string> | undefined) =>
    Object.entries(m ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join('\n');
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (keyed) return (keyed[1] === 'labels' ? meta.labels : meta.annotations)?.[keyed[2]!] ?? '';
  switch (fieldPath) {
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    case 'metadata.labels':
      return pairs(meta.labels);
    case 'metadata.annotations':
      return pairs(meta.annotations);
    case 'spec.nodeName':
      return str(rec(pod.spec)['nodeName']);
    case 'spec.serviceAccountName':
      return str(rec(pod.spec)['serviceAccountName']);
    case 'status.hostIP':
      return str(rec(pod.status)['hostIP']);
    case 'status.podIP':
      return str(rec(pod.status)['podIP']);
    default:
      return undefined;
  }
}

interface Tracked {
  pod: Pod;
  /** volume name -> file path -> content */
  files: Map<string, Map<string, string>>;
  timer: unknown;
  failures: number;
  stopped: boolean;
}

export interface PodVolumesContext {
  /** The node's own client. */
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  /** Whether the node is frozen (crashed): nothing is asked for then. */
  frozen(): boolean;
}

const projectedVolumes = (pod: Pod): Loose[] => list(rec(pod.spec)['volumes']).filter((v) => v['projected'] !== undefined && v['projected'] !== null);

export class PodVolumes {
  private readonly pods = new Map<string, Tracked>();

  constructor(private readonly ctx: PodVolumesContext) {}

  /** Starts filling the projected volumes of a pod that has any (idempotent). */
  start(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    if (!uid || this.pods.has(uid) || projectedVolumes(pod).length === 0) return;
    const t: Tracked = { pod, files: new Map(), timer: undefined, failures: 0, stopped: false };
    this.pods.set(uid, t);
    void this.fill(uid, t);
  }

  /** Stops refreshing (the pod was deleted or finished) and forgets its files. */
  stop(uid: string): void {
    const t = this.pods.get(uid);
    if (!t) return;
    t.stopped = true;
    this.ctx.clock.clearTimeout(t.timer);
    this.pods.delete(uid);
  }

  stopAll(): void {
    for (const uid of [...this.pods.keys()]) this.stop(uid);
  }

  /** What the pod's projected volumes hold now (undefined: none of this pod's are filled here). */
  files(uid: string): ReadonlyMap<string, ReadonlyMap<string, string>> | undefined {
    return this.pods.get(uid)?.files;
  }

  private schedule(uid: string, t: Tracked, inMs: number): void {
    if (t.stopped) return;
    this.ctx.clock.clearTimeout(t.timer);
    t.timer = this.ctx.clock.setTimeout(() => void this.fill(uid, t), Math.max(0, inMs));
  }

  /** Fills every projected volume once; schedules the next refresh (the earliest token's), or a retry. */
  private async fill(uid: string, t: Tracked): Promise<void> {
    if (t.stopped) return;
    if (this.ctx.frozen()) return this.schedule(uid, t, RETRY_MIN_MS);
    const { pod } = t;
    let next = Number.POSITIVE_INFINITY;
    try {
      for (const volume of projectedVolumes(pod)) {
        const files = new Map<string, string>();
        for (const source of list(rec(volume['projected'])['sources'])) {
          if (source['serviceAccountToken']) {
            const { path, token, issuedAt, expiresAt } = await this.token(pod, rec(source['serviceAccountToken']));
            files.set(path, token);
            next = Math.min(next, refreshAt(issuedAt, expiresAt));
          } else if (source['configMap'] || source['secret']) {
            for (const [k, v] of await this.keyed(pod, source)) files.set(k, v);
          } else if (source['downwardAPI']) {
            for (const item of list(rec(source['downwardAPI'])['items'])) {
              const value = downwardField(pod, str(rec(item['fieldRef'])['fieldPath']));
              if (value !== undefined && str(item['path'])) files.set(str(item['path']), value);
            }
          }
        }
        if (t.stopped) return;
        t.files.set(str(volume['name']), files);
      }
      t.failures = 0;
      if (Number.isFinite(next)) this.schedule(uid, t, next - this.ctx.clock.now());
    } catch (err) {
      if (t.stopped) return;
      t.failures++;
      const retry = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (t.failures - 1));
      this.ctx.logger.warn({ err: (err as Error).message, pod: `${pod.metadata.namespace}/${pod.metadata.name}`, retryInMs: retry }, 'could not fill a projected volume; trying again');
      this.schedule(uid, t, retry);
    }
  }

  /** A TokenRequest for the pod's account, bound to the pod. */
  private async token(pod: Pod, source: Loose): Promise<{ path: string; token: string; issuedAt: number; expiresAt: number }> {
    const namespace = pod.metadata.namespace ?? '';
    const account = str(rec(pod.spec)['serviceAccountName']) || 'default';
    const audience = str(source['audience']);
    const expirationSeconds = typeof source['expirationSeconds'] === 'number' ? source['expirationSeconds'] : 3600;
    const issuedAt = this.ctx.clock.now();
    const answer = await this.ctx.client.subresource<{ status?: { token?: string; expirationTimestamp?: string } }>(resources.serviceaccounts, namespace, account, 'token', 'POST', {
      apiVersion: 'authentication.svc.io/v1',
      kind: 'TokenRequest',
      metadata: { name: account, namespace },
      spec: {
        audiences: audience ? [audience] : [],
        expirationSeconds,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
      },
    });
    const token = answer.status?.token;
    if (!token) throw new Error(`the TokenRequest for ${namespace}/${account} returned no token`);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '') || issuedAt + expirationSeconds * 1000;
    return { path: str(source['path']), token, issuedAt, expiresAt };
  }

  /** The files of a configMap or secret projection. */
  private async keyed(pod: Pod, source: Loose): Promise<[string, string][]> {
    const isSecret = Boolean(source['secret']);
    const s = rec(isSecret ? source['secret'] : source['configMap']);
    const name = str(s['name']);
    let data: Record<string, string> = {};
    try {
      const obj = rec(await this.ctx.client.get(isSecret ? resources.secrets : resources.configmaps, pod.metadata.namespace ?? '', name));
      const raw = rec(obj['data']);
      for (const [k, v] of Object.entries(raw)) data[k] = isSecret ? Buffer.from(str(v), 'base64').toString('utf8') : str(v);
    } catch (err) {
      if (s['optional'] === true) data = {};
      else throw err;
    }
    const items = list(s['items']);
    if (items.length === 0) return Object.entries(data);
    return items.filter((i) => data[str(i['key'])] !== undefined).map((i) => [str(i['path']), data[str(i['key'])]!]);
  }
}
