/**
 * API Priority and Fairness: the request gate that replaces the two in-flight limits when the
 * APIPriorityAndFairness gate and --enable-priority-and-fairness are on (the established
 * configController and WithPriorityAndFairness filter, in one place).
 *
 * - Configuration: follows the FlowSchema and PriorityLevelConfiguration stores; the mandatory
 *   objects are used from memory while absent from storage, and ./bootstrap-ensurer.ts keeps the
 *   bootstrap objects there. The server's concurrency limit (--max-requests-inflight +
 *   --max-mutating-requests-inflight) is shared among the Limited levels in proportion to their
 *   assuredConcurrencyShares: ceil(limit x shares / sum of shares). A level deleted while it holds
 *   requests quiesces (no new requests, the queued ones still run) and then goes.
 * - Each schema's `Dangling` condition is written when it changes (True: its level does not exist,
 *   and the schema is skipped).
 * - `admit()`: classifies the request (./matching.ts), sets the X-Kubernetes-PF-FlowSchema-UID and
 *   X-Kubernetes-PF-PriorityLevel-UID headers, then runs it at once (Exempt), or hands it to the
 *   level's queues (./queue-set.ts), waiting at most the request wait limit (a quarter of
 *   --request-timeout); a rejection is the established 429 with Retry-After: 1. Long-running
 *   requests never come here (as in the spec's release, they are not limited).
 * - `serveDebug()`: /debug/api_priority_and_fairness/dump_priority_levels, dump_queues, dump_requests.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CONDITION_DANGLING, FLOW_SCHEMA_CATCH_ALL } from '../../api/kinds/flowcontrol/flow-schema.js';
import { PRIORITY_LEVEL_CATCH_ALL } from '../../api/kinds/flowcontrol/priority-level.js';
import { asArray, asRecord } from '../../api/kinds/define.js';
import { canonicalJson } from '../../api/json-walk.js';
import { tooManyRequests } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import type { UserInfo } from '../auth/user.js';
import type { Response } from '../http.js';
import type { RequestInfo } from '../request-info.js';
import { StoreFollower } from '../store-follower.js';
import { BootstrapEnsurer, type KindStore } from './bootstrap-ensurer.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from './bootstrap.js';
import { dumpPriorityLevels, dumpQueues, dumpRequests, type LevelDigest, type RequestDetail } from './debug-dump.js';
import { classify, compareFlowSchemas, type CompiledFlowSchema, compileFlowSchema, flowDistinguisher, requestNamespace } from './matching.js';
import { FlowControlMetrics } from './metrics.js';
import { type Clock, QueueSet, type QueueSetConfig, REAL_CLOCK } from './queue-set.js';
import { hashFlowId } from './shuffle-sharding.js';

export const HEADER_FLOW_SCHEMA_UID = 'X-Kubernetes-PF-FlowSchema-UID';
export const HEADER_PRIORITY_LEVEL_UID = 'X-Kubernetes-PF-PriorityLevel-UID';
const DEBUG_PREFIX = '/debug/api_priority_and_fairness/';

export interface FlowControlOptions {
  flowSchemas: KindStore;
  priorityLevels: KindStore;
  /** --max-requests-inflight + --max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  /** How long a request may wait in a queue. */
  requestWaitLimitMs: number;
  registry: Registry;
  now: () => number;
  logger: Logger;
  clock?: Clock;
  /** How often the bootstrap objects are checked (default 10 s). */
  ensureIntervalMs?: number;
}

interface LevelState {
  name: string;
  uid: string;
  exempt: boolean;
  shares: number;
  queues?: QueueSet;
  quiescing: boolean;
  /** Exempt requests running now. */
  exemptExecuting: number;
}

interface RequestLike {
  setHeader(name: string, value: string): unknown;
  on(event: 'close', fn: () => void): unknown;
}

export class FlowControl {
  private readonly metrics: FlowControlMetrics;
  private readonly clock: Clock;
  private readonly ensurer: BootstrapEnsurer;
  private readonly followers: StoreFollower[] = [];
  private readonly fsObjects = new Map<string, SvcObject>();
  private readonly plObjects = new Map<string, SvcObject>();
  private schemas: CompiledFlowSchema[] = [];
  private readonly levels = new Map<string, LevelState>();
  private statusWrites: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: FlowControlOptions) {
    this.metrics = new FlowControlMetrics(opts.registry);
    this.clock = opts.clock ?? REAL_CLOCK;
    this.ensurer = new BootstrapEnsurer(opts.flowSchemas, opts.priorityLevels, opts.now, opts.logger, opts.ensureIntervalMs);
    this.digest();
  }

  /** Readiness of the bootstrap configuration (`poststarthook/priority-and-fairness-config-producer`). */
  get ready(): boolean {
    return this.ensurer.ready;
  }

  async start(): Promise<void> {
    const follow = (kind: KindStore, into: Map<string, SvcObject>) =>
      new StoreFollower(
        kind.store,
        {
          reset: (objects) => {
            into.clear();
            for (const o of objects) into.set(o.metadata.name ?? '', o);
            this.digest();
          },
          upsert: (o) => {
            into.set(o.metadata.name ?? '', o);
            this.digest();
          },
          remove: (o) => {
            into.delete(o.metadata.name ?? '');
            this.digest();
          },
        },
        this.opts.logger,
      );
    this.followers.push(follow(this.opts.priorityLevels, this.plObjects), follow(this.opts.flowSchemas, this.fsObjects));
    await Promise.all(this.followers.map((f) => f.start()));
    await this.ensurer.start();
  }

  stop(): void {
    this.stopped = true;
    this.ensurer.stop();
    for (const f of this.followers) f.stop();
  }

  /** The configuration now: stored objects, the mandatory ones from memory where absent. */
  private digest(): void {
    const pls = new Map(this.plObjects);
    for (const o of mandatoryPriorityLevels()) if (!pls.has(o.metadata.name!)) pls.set(o.metadata.name!, o);
    const fss = new Map(this.fsObjects);
    for (const o of mandatoryFlowSchemas()) if (!fss.has(o.metadata.name!)) fss.set(o.metadata.name!, o);

    let shareSum = 0;
    for (const o of pls.values()) {
      const limited = asRecord(asRecord(o['spec'])['limited']);
      if (asRecord(o['spec'])['type'] === 'Limited') shareSum += Number(limited['assuredConcurrencyShares'] ?? 0);
    }
    const seen = new Set<string>();
    for (const [name, o] of pls) {
      seen.add(name);
      const spec = asRecord(o['spec']);
      const exempt = spec['type'] === 'Exempt';
      const limited = asRecord(spec['limited']);
      const shares = Number(limited['assuredConcurrencyShares'] ?? 0);
      const queuing = asRecord(asRecord(limited['limitResponse'])['queuing']);
      const queued = asRecord(limited['limitResponse'])['type'] === 'Queue';
      let state = this.levels.get(name);
      if (!state) {
        state = { name, uid: '', exempt, shares, quiescing: false, exemptExecuting: 0 };
        this.levels.set(name, state);
      }
      state.uid = o.metadata.uid ?? '';
      state.exempt = exempt;
      state.shares = shares;
      state.quiescing = false;
      if (exempt) continue;
      const limit = Math.max(1, Math.ceil((this.opts.serverConcurrencyLimit * shares) / Math.max(1, shareSum)));
      const config: QueueSetConfig = queued
        ? { concurrencyLimit: limit, queues: Number(queuing['queues'] ?? 64), handSize: Number(queuing['handSize'] ?? 8), queueLengthLimit: Number(queuing['queueLengthLimit'] ?? 50) }
        : { concurrencyLimit: limit, queues: 0, handSize: 0, queueLengthLimit: 0 };
      if (state.queues) state.queues.reconfigure(config);
      else state.queues = new QueueSet(config, this.clock);
      this.metrics.concurrencyLimit.set({ priority_level: name }, limit);
    }
    for (const [name, state] of this.levels) {
      if (seen.has(name)) continue;
      if (state.queues && !state.queues.isIdle) state.quiescing = true;
      else if (state.exemptExecuting === 0) {
        this.levels.delete(name);
        this.metrics.concurrencyLimit.remove({ priority_level: name });
      }
    }
    this.schemas = [...fss.values()].map(compileFlowSchema).sort(compareFlowSchemas);
    this.writeDanglingConditions();
  }

  private usable = (fs: CompiledFlowSchema): boolean => {
    const l = this.levels.get(fs.priorityLevel);
    return l !== undefined && !l.quiescing;
  };

  /**
   * Lets a (not long-running) request through when its level allows: resolves to the function to
   * call once it is done; rejects with the 429 StatusError when its level refuses it.
   */
  async admit(user: UserInfo, info: RequestInfo, res: RequestLike): Promise<() => void> {
    const fs = classify(this.schemas, user, info, this.usable) ?? this.schemas.find((s) => s.name === FLOW_SCHEMA_CATCH_ALL)!;
    const level = this.levels.get(fs.priorityLevel) ?? this.levels.get(PRIORITY_LEVEL_CATCH_ALL)!;
    res.setHeader(HEADER_FLOW_SCHEMA_UID, fs.uid);
    res.setHeader(HEADER_PRIORITY_LEVEL_UID, level.uid);
    const labels = { flow_schema: fs.name, priority_level: level.name };
    const started = this.clock.now();
    if (level.exempt || !level.queues) {
      level.exemptExecuting++;
      return this.running(labels, 0, () => {
        level.exemptExecuting--;
      });
    }
    const distinguisher = flowDistinguisher(fs, user, info);
    let queued = false;
    let outcome;
    try {
      outcome = await level.queues.enqueue(
        hashFlowId(fs.name, distinguisher),
        {
          flowSchema: fs.name,
          distinguisher,
          detail: requestDetail(user, info),
          onQueued: (n) => {
            queued = true;
            this.metrics.inQueue.inc(labels);
            this.metrics.queueLengthAfterEnqueue.observe(labels, n);
          },
        },
        this.opts.requestWaitLimitMs,
        { onAbort: (fn) => res.on('close', fn) },
      );
    } finally {
      if (queued) this.metrics.inQueue.dec(labels);
    }
    if ('rejected' in outcome) {
      this.metrics.rejected.inc({ ...labels, reason: outcome.rejected });
      this.metrics.waitDuration.observe({ ...labels, execute: 'false' }, (this.clock.now() - started) / 1000);
      throw tooManyRequests('Too many requests, please try again later.', 1);
    }
    const admitted = outcome.admitted;
    return this.running(labels, admitted.waitedMs, () => admitted.finish());
  }

  private running(labels: { flow_schema: string; priority_level: string }, waitedMs: number, finish: () => void): () => void {
    this.metrics.dispatched.inc(labels);
    this.metrics.waitDuration.observe({ ...labels, execute: 'true' }, waitedMs / 1000);
    this.metrics.executing.inc(labels);
    const started = this.clock.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.metrics.executing.dec(labels);
      this.metrics.executionSeconds.observe(labels, (this.clock.now() - started) / 1000);
      finish();
      // A quiescing level goes once its last request is done.
      this.dropIdleQuiescing();
    };
  }

  private dropIdleQuiescing(): void {
    for (const [name, state] of this.levels) {
      if (state.quiescing && (!state.queues || state.queues.isIdle) && state.exemptExecuting === 0) this.levels.delete(name);
    }
  }

  /** Serves the debug dumps; false for any other path. */
  serveDebug(pathname: string, query: URLSearchParams, res: Response): boolean {
    if (!pathname.startsWith(DEBUG_PREFIX)) return false;
    const page = pathname.slice(DEBUG_PREFIX.length);
    const levels = this.digestForDump(query.get('includeRequestDetails') ? true : false);
    let body: string;
    if (page === 'dump_priority_levels') body = dumpPriorityLevels(levels);
    else if (page === 'dump_queues') body = dumpQueues(levels);
    else if (page === 'dump_requests') body = dumpRequests(levels, (query.get('includeRequestDetails') ?? '').length > 0);
    else return false;
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(body);
    return true;
  }

  private digestForDump(details: boolean): LevelDigest[] {
    return [...this.levels.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((l) => {
        if (l.exempt || !l.queues) return { name: l.name, quiescing: l.quiescing, executing: l.exemptExecuting, waiting: 0 };
        return {
          name: l.name,
          quiescing: l.quiescing,
          executing: l.queues.executingRequests,
          waiting: l.queues.waitingRequests,
          queues: l.queues.dump().map((q) => ({
            index: q.index,
            executing: q.executing,
            virtualStart: q.virtualStart,
            waiting: q.waiting.map((w) => ({
              flowSchema: w.description.flowSchema,
              distinguisher: w.description.distinguisher,
              arrivedAt: w.arrivedAt,
              ...(details ? { detail: w.description.detail as RequestDetail } : {}),
            })),
          })),
        };
      });
  }

  /** Writes each stored schema's Dangling condition when it is not what it should be (one write at a time). */
  private writeDanglingConditions(): void {
    for (const fs of this.schemas) {
      if (!this.fsObjects.has(fs.name)) continue;
      const dangling = !this.levels.has(fs.priorityLevel) || this.levels.get(fs.priorityLevel)!.quiescing;
      const want = dangling
        ? { status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(fs.priorityLevel)} but there is no such object` }
        : { status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(fs.priorityLevel)} and it exists` };
      const have = asArray(asRecord(fs.object['status'])['conditions']).map(asRecord).find((c) => c['type'] === CONDITION_DANGLING);
      if (have && have['status'] === want.status && have['reason'] === want.reason && have['message'] === want.message) continue;
      const name = fs.name;
      this.statusWrites = this.statusWrites.then(() => this.writeCondition(name, want)).catch((err: unknown) => this.opts.logger.warn({ err, flowSchema: name }, 'writing the Dangling condition failed'));
    }
  }

  private async writeCondition(name: string, want: { status: string; reason: string; message: string }): Promise<void> {
    if (this.stopped) return;
    const { store } = this.opts.flowSchemas;
    const existing = await store.getForUpdate('', name);
    if (!existing) return;
    const next = structuredClone(existing.object);
    const status = asRecord(next['status']);
    const conditions = asArray(status['conditions']).map(asRecord);
    const at = conditions.findIndex((c) => c['type'] === CONDITION_DANGLING);
    const old = at >= 0 ? conditions[at] : undefined;
    if (old && old['status'] === want.status && old['reason'] === want.reason && old['message'] === want.message) return;
    const lastTransitionTime = old && old['status'] === want.status ? old['lastTransitionTime'] : new Date(this.opts.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const condition = { type: CONDITION_DANGLING, ...want, lastTransitionTime };
    if (at >= 0) conditions[at] = condition;
    else conditions.push(condition);
    next['status'] = { ...status, conditions };
    if (canonicalJson(next['status']) === canonicalJson(existing.object['status'])) return;
    const { value } = store.encode(next, existing);
    await store.replace(next, value, existing.revision, false);
  }
}

function requestDetail(user: UserInfo, info: RequestInfo): RequestDetail {
  if (!info.isResourceRequest) return { userName: user.username, verb: info.verb, path: info.path, namespace: '', name: '', apiVersion: '', resource: '', subresource: '' };
  return {
    userName: user.username,
    verb: info.verb,
    path: info.path,
    namespace: requestNamespace(info),
    name: info.name,
    apiVersion: info.group ? `${info.group}/${info.version}` : info.version,
    resource: info.resource,
    subresource: info.subresource,
  };
}
