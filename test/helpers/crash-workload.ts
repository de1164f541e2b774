/**
 * The write load of the crash-consistency test, with a model of what the server acknowledged.
 *
 * - `writers` workers create, update (with the acknowledged resourceVersion as precondition) and
 *   delete ConfigMaps; each worker owns its own names, so the last acknowledged state of every name
 *   is known exactly. A body carries its version number three times (two data keys and a label) so
 *   a half-written object shows as a mismatch.
 * - one worker per Deployment scales it and changes its pod template (a `crash/rev` annotation), so
 *   new ReplicaSets roll out; its acknowledged spec is modelled the same way.
 *
 * A write that got no answer, or a 5xx, is "unknown": either its old or its new value may be stored.
 * Workers stop at the gate while the server is down (`hold()`), and resolve their unknown writes by
 * reading them once it is back (`release()`). Every violation (an acknowledged write not stored, a
 * body neither old nor new, a resourceVersion that went back, an unexpected status) is collected in
 * `violations`; the test asserts the list is empty.
 */
import type { ApiHttp } from './api-http.js';

export const REV_ANNOTATION = 'crash/rev';

/** What a name holds: absent, or version `n` stored at resourceVersion `rv`. */
export type Held = { present: false } | { present: true; n: number; rv: number };

interface CmSlot {
  name: string;
  acked: Held;
  /** The write whose answer never came: its outcome is read back once the server is up. */
  unknown?: Held;
}

export interface DeploySpec {
  replicas: number;
  rev: number;
}

interface DeploySlot {
  name: string;
  acked: DeploySpec;
  unknown?: DeploySpec;
}

/** One acknowledged ConfigMap write, for the watch check (every one must be seen). */
export interface AckedWrite {
  name: string;
  /** `put`: the resourceVersion the answer carried; `delete`: the object's last one before it. */
  kind: 'put' | 'delete';
  rv: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function cmBody(namespace: string, name: string, n: number, rv?: number): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { 'crash/n': String(n) }, ...(rv !== undefined ? { resourceVersion: String(rv) } : {}) },
    data: { n: String(n), copy: String(n), pad: `${n}:${'x'.repeat(300)}` },
  };
}

/** The version a stored ConfigMap holds; throws when its body is not one whole write of ours. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function cmVersion(obj: any, name?: string): number {
  const n = obj?.data?.n;
  const whole =
    obj?.kind === 'ConfigMap' &&
    obj?.apiVersion === 'v1' &&
    (name === undefined || obj?.metadata?.name === name) &&
    typeof n === 'string' &&
    obj.data.copy === n &&
    obj.metadata?.labels?.['crash/n'] === n &&
    obj.data.pad === `${n}:${'x'.repeat(300)}` &&
    /^\d+$/.test(String(obj.metadata?.resourceVersion ?? ''));
  if (!whole) throw new Error(`not a whole write: ${JSON.stringify(obj).slice(0, 300)}`);
  return Number(n);
}

export function deploymentBody(namespace: string, name: string, spec: DeploySpec): object {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: spec.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { [REV_ANNOTATION]: String(spec.rev) } },
        spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'app', image: 'registry.example/app:1' }] },
      },
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function deploySpecOf(obj: any): DeploySpec {
  return { replicas: Number(obj?.spec?.replicas), rev: Number(obj?.spec?.template?.metadata?.annotations?.[REV_ANNOTATION]) };
}

const sameHeld = (a: Held, b: Held) => a.present === b.present && (!a.present || (b.present && a.n === b.n));
const showHeld = (h: Held) => (h.present ? `v${h.n}@${h.rv}` : 'absent');
const sameSpec = (a: DeploySpec, b: DeploySpec) => a.replicas === b.replicas && a.rev === b.rev;

export interface WorkloadOptions {
  writers: number;
  /** ConfigMap names each writer owns. */
  namesPerWriter: number;
  deployments: number;
  /** The most replicas a Deployment is scaled to. */
  maxReplicas: number;
  /** Pause between two steps of one Deployment's churn. */
  deployStepMs: number;
}

export class CrashWorkload {
  readonly violations: string[] = [];
  readonly ackedWrites: AckedWrite[] = [];
  /** Acknowledged writes in all (ConfigMaps and Deployments). */
  acks = 0;
  /** Acknowledged states not found as acknowledged (nor as an unanswered write) when read back. */
  lost = 0;
  /** Writes that got no answer (or a 5xx) and were read back after the restart. */
  unknownResolved = 0;
  /** The highest resourceVersion any answer carried. */
  maxAckedRv = 0;
  /**
   * No write sent after the last hold() may get a resourceVersion at or below this. (A write sent
   * before it may: with only etcd killed, the apiserver still answers a write etcd committed just
   * before it died.)
   */
  private rvFloor = 0;
  /** Counts hold()s: the holds a write was sent after. */
  private epoch = 0;
  private readonly cms: CmSlot[] = [];
  private readonly deploys: DeploySlot[] = [];
  private next = 0;
  private stopped = true;
  private deployChurn = false;
  private held = false;
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => undefined;
  private waiting = 0;
  private workers: Promise<void>[] = [];

  /** The ConfigMaps written, and the Deployments churned, are in this namespace (created by setUp()). */
  readonly cmPath: string;
  /**
   * The workload's own ConfigMaps (each write of ours carries the `crash/n` label): the namespace
   * also holds what controllers put there, e.g. root-ca-cert-publisher's `svc-root-ca.crt`.
   */
  readonly ownCmsPath: string;
  readonly deployPath: string;

  constructor(private readonly http: ApiHttp, readonly opts: WorkloadOptions, readonly namespace = 'crash') {
    this.cmPath = `/api/v1/namespaces/${namespace}/configmaps`;
    this.ownCmsPath = `${this.cmPath}?labelSelector=crash%2Fn`;
    this.deployPath = `/apis/apps/v1/namespaces/${namespace}/deployments`;
    for (let i = 0; i < opts.writers * opts.namesPerWriter; i++) this.cms.push({ name: `cm-${i}`, acked: { present: false } });
    for (let i = 0; i < opts.deployments; i++) this.deploys.push({ name: `web-${i}`, acked: { replicas: 1 + (i % opts.maxReplicas), rev: 1 } });
  }

  get deploymentNames(): string[] {
    return this.deploys.map((d) => d.name);
  }

  /** Creates the namespace and the Deployments (before any kill). */
  async setUp(): Promise<void> {
    const ns = await this.http.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.namespace } });
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${ns.text}`);
    for (const d of this.deploys) {
      const r = await this.http.call('POST', this.deployPath, deploymentBody(this.namespace, d.name, d.acked));
      if (r.status !== 201) throw new Error(`deployment ${d.name}: ${r.status} ${r.text}`);
      this.ack(Number(r.json.metadata.resourceVersion), 'create deployment', this.epoch);
    }
  }

  /** Starts the writers (and the Deployment churn). */
  start(): void {
    this.stopped = false;
    this.deployChurn = true;
    this.workers = [
      ...Array.from({ length: this.opts.writers }, (_, w) => this.cmWorker(w)),
      ...this.deploys.map((d) => this.deployWorker(d)),
    ];
  }

  /** Stops every worker after its current write and resolves once all are idle (nothing unknown left). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
    this.workers = [];
  }

  /** Stops only the Deployment churn (the workloads can then converge). */
  stopDeploymentChurn(): void {
    this.deployChurn = false;
  }

  /**
   * Closed right after a kill: workers finish the write in flight, then wait. `rvFloor` becomes the
   * highest resourceVersion acknowledged so far (later writes must be above it).
   */
  hold(): void {
    if (this.held) return;
    this.held = true;
    this.rvFloor = this.maxAckedRv;
    this.epoch++;
    this.gate = new Promise((r) => (this.openGate = r));
  }

  /**
   * Resolves once every worker waits at the gate (after hold()): no write of ours is in flight, so
   * what is read back now cannot change under the reader (with etcd down, the apiserver may hold a
   * write until its request deadline).
   */
  async parked(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.waiting < this.workers.length) {
      if (Date.now() > deadline) throw new Error(`${this.workers.length - this.waiting} writers still had a request in flight ${timeoutMs} ms after the kill`);
      await sleep(20);
    }
  }

  release(): void {
    this.held = false;
    this.openGate();
  }

  /** Total number of writes acknowledged so far; waits until `n` more than `since` are. */
  async waitForAcks(since: number, n: number, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.acks < since + n) {
      if (Date.now() > deadline) throw new Error(`only ${this.acks - since} of ${n} writes acknowledged in ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  /**
   * Reads everything back (after a restart, before the writers go on): each name must hold its
   * last acknowledged value (or, for a write without an answer, the old or the new one), every
   * stored object must be a whole write of ours, and the list's resourceVersion must not be below
   * what was acknowledged. Resolves to the number of acknowledged states checked.
   */
  async verifyStored(): Promise<number> {
    const list = await this.http.call('GET', this.ownCmsPath);
    if (list.status !== 200) throw new Error(`list after restart: ${list.status} ${list.text.slice(0, 300)}`);
    const listRv = Number(list.json.metadata.resourceVersion);
    if (!(listRv >= this.rvFloor)) this.violations.push(`list resourceVersion ${listRv} after the restart is below the acknowledged ${this.rvFloor}`);
    const stored = new Map<string, Held>();
    for (const item of list.json.items) {
      const name = String(item?.metadata?.name);
      try {
        stored.set(name, { present: true, n: cmVersion(item, name), rv: Number(item.metadata.resourceVersion) });
      } catch (err) {
        this.violations.push(`half-written ${name}: ${(err as Error).message}`);
      }
    }
    let checked = 0;
    const known = new Set(this.cms.map((s) => s.name));
    for (const name of stored.keys()) if (!known.has(name)) this.violations.push(`stored ${name} that nobody wrote`);
    for (const s of this.cms) {
      const got = stored.get(s.name) ?? { present: false };
      const okAcked = sameHeld(got, s.acked) && (!got.present || !s.acked.present || got.rv === s.acked.rv);
      if (okAcked || (s.unknown && sameHeld(got, s.unknown))) {
        if (!s.unknown) checked++;
        continue;
      }
      this.lost++;
      this.violations.push(`${s.name}: stored ${showHeld(got)}, acknowledged ${showHeld(s.acked)}${s.unknown ? `, unanswered ${showHeld(s.unknown)}` : ''}`);
    }
    for (const d of this.deploys) {
      const r = await this.http.call('GET', `${this.deployPath}/${d.name}`);
      if (r.status !== 200) {
        this.violations.push(`deployment ${d.name} after restart: ${r.status}`);
        continue;
      }
      const got = deploySpecOf(r.json);
      if (sameSpec(got, d.acked) || (d.unknown && sameSpec(got, d.unknown))) {
        if (!d.unknown) checked++;
      } else {
        this.lost++;
        this.violations.push(`deployment ${d.name}: stored ${JSON.stringify(got)}, acknowledged ${JSON.stringify(d.acked)}${d.unknown ? `, unanswered ${JSON.stringify(d.unknown)}` : ''}`);
      }
    }
    return checked;
  }

  /** The spec each Deployment holds now (its last acknowledged one; call after stop()). */
  deploymentSpecs(): Map<string, DeploySpec> {
    return new Map(this.deploys.map((d) => [d.name, d.acked]));
  }

  private ack(rv: number, what: string, sentInEpoch: number): void {
    this.acks++;
    if (sentInEpoch === this.epoch && !(rv > this.rvFloor)) this.violations.push(`${what}: resourceVersion ${rv} is not above ${this.rvFloor}, acknowledged before the kill`);
    if (rv > this.maxAckedRv) this.maxAckedRv = rv;
  }

  /** Waits at the gate while the server is down; false once stopped. */
  private async pass(): Promise<boolean> {
    while (this.held) {
      this.waiting++;
      await this.gate;
      this.waiting--;
    }
    return !this.stopped;
  }

  private async cmWorker(w: number): Promise<void> {
    const mine = this.cms.filter((_, i) => i % this.opts.writers === w);
    for (;;) {
      const pending = mine.find((s) => s.unknown);
      if (!(await this.pass()) && !pending) return;
      if (pending) {
        await this.resolveCm(pending);
        continue;
      }
      const s = mine[Math.floor(Math.random() * mine.length)]!;
      await this.writeCm(s);
    }
  }

  private async writeCm(s: CmSlot): Promise<void> {
    const n = ++this.next;
    const a = s.acked;
    let op: 'create' | 'update' | 'delete';
    if (!a.present) op = 'create';
    else op = Math.random() < 0.75 ? 'update' : 'delete';
    const attempted: Held = op === 'delete' ? { present: false } : { present: true, n, rv: 0 };
    let status: number;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let json: any;
    const sent = this.epoch;
    try {
      const r =
        op === 'create'
          ? await this.http.call('POST', this.cmPath, cmBody(this.namespace, s.name, n))
          : op === 'update'
            ? await this.http.call('PUT', `${this.cmPath}/${s.name}`, cmBody(this.namespace, s.name, n, a.present ? a.rv : undefined))
            : await this.http.call('DELETE', `${this.cmPath}/${s.name}`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: String(a.present ? a.rv : '') } });
      status = r.status;
      json = r.json;
      if (status === 429) {
        await sleep(200);
        return;
      }
      if (status >= 200 && status < 300) {
        if (op === 'delete') {
          this.acks++;
          this.ackedWrites.push({ name: s.name, kind: 'delete', rv: a.present ? a.rv : 0 });
          s.acked = { present: false };
        } else {
          const rv = Number(json?.metadata?.resourceVersion);
          this.ack(rv, `${op} ${s.name}`, sent);
          if (cmVersion(json, s.name) !== n) this.violations.push(`${op} ${s.name} answered with another version: ${JSON.stringify(json).slice(0, 200)}`);
          s.acked = { present: true, n, rv };
          this.ackedWrites.push({ name: s.name, kind: 'put', rv });
        }
        return;
      }
      if (status < 500) this.violations.push(`${op} ${s.name} (acknowledged ${showHeld(a)}): unexpected ${status} ${JSON.stringify(json?.message ?? '')}`);
    } catch {
      // No answer: the server died under it (or the store did); the outcome is read back later.
    }
    s.unknown = attempted;
  }

  private async resolveCm(s: CmSlot): Promise<void> {
    let r;
    try {
      r = await this.http.call('GET', `${this.cmPath}/${s.name}`);
    } catch {
      await sleep(100);
      return;
    }
    if (r.status >= 500 || r.status === 429) {
      await sleep(100);
      return;
    }
    let got: Held;
    if (r.status === 404) got = { present: false };
    else if (r.status === 200) {
      try {
        got = { present: true, n: cmVersion(r.json, s.name), rv: Number(r.json.metadata.resourceVersion) };
      } catch (err) {
        this.violations.push(`half-written ${s.name}: ${(err as Error).message}`);
        got = { present: true, n: Number(r.json?.data?.n), rv: Number(r.json?.metadata?.resourceVersion) };
      }
    } else {
      this.violations.push(`read of ${s.name}: ${r.status}`);
      return;
    }
    const u = s.unknown!;
    if (!sameHeld(got, s.acked) && !sameHeld(got, u)) {
      this.lost++;
      this.violations.push(`${s.name}: stored ${showHeld(got)}, acknowledged ${showHeld(s.acked)}, unanswered ${showHeld(u)}`);
    }
    // The watch must still have seen whatever was stored (a write applied without an answer, too).
    if (got.present && !(s.acked.present && got.rv === s.acked.rv)) this.ackedWrites.push({ name: s.name, kind: 'put', rv: got.rv });
    s.acked = got;
    s.unknown = undefined;
    this.unknownResolved++;
  }

  private async deployWorker(d: DeploySlot): Promise<void> {
    let step = 0;
    for (;;) {
      if (!(await this.pass()) && !d.unknown) return;
      if (d.unknown) {
        await this.resolveDeploy(d);
        continue;
      }
      if (!this.deployChurn) {
        if (this.stopped) return;
        await sleep(50);
        continue;
      }
      step++;
      const others = Array.from({ length: this.opts.maxReplicas }, (_, i) => i + 1).filter((x) => x !== d.acked.replicas);
      const next: DeploySpec =
        step % 2 === 1 || others.length === 0 ? { ...d.acked, rev: d.acked.rev + 1 } : { ...d.acked, replicas: others[Math.floor(Math.random() * others.length)]! };
      const patch = next.rev !== d.acked.rev ? { spec: { template: { metadata: { annotations: { [REV_ANNOTATION]: String(next.rev) } } } } } : { spec: { replicas: next.replicas } };
      const sent = this.epoch;
      try {
        const r = await this.http.call('PATCH', `${this.deployPath}/${d.name}`, patch, 'application/merge-patch+json');
        if (r.status >= 200 && r.status < 300) {
          this.ack(Number(r.json?.metadata?.resourceVersion), `patch ${d.name}`, sent);
          const got = deploySpecOf(r.json);
          if (!sameSpec(got, next)) this.violations.push(`patch ${d.name} answered ${JSON.stringify(got)}, sent ${JSON.stringify(next)}`);
          d.acked = next;
        } else if (r.status === 429) {
          await sleep(200);
        } else if (r.status < 500) {
          this.violations.push(`patch ${d.name}: unexpected ${r.status} ${r.text.slice(0, 200)}`);
          d.unknown = next;
        } else d.unknown = next;
      } catch {
        d.unknown = next;
      }
      await sleep(this.opts.deployStepMs);
    }
  }

  private async resolveDeploy(d: DeploySlot): Promise<void> {
    let r;
    try {
      r = await this.http.call('GET', `${this.deployPath}/${d.name}`);
    } catch {
      await sleep(100);
      return;
    }
    if (r.status !== 200) {
      if (r.status < 500 && r.status !== 429) this.violations.push(`read of deployment ${d.name}: ${r.status}`);
      await sleep(100);
      return;
    }
    const got = deploySpecOf(r.json);
    if (!sameSpec(got, d.acked) && !sameSpec(got, d.unknown!)) {
      this.lost++;
      this.violations.push(`deployment ${d.name}: stored ${JSON.stringify(got)}, acknowledged ${JSON.stringify(d.acked)}, unanswered ${JSON.stringify(d.unknown)}`);
    }
    d.acked = got;
    d.unknown = undefined;
    this.unknownResolved++;
  }
}
