/**
 * Keeps the bootstrap configuration (./bootstrap.ts) in storage, as the established
 * `priority-and-fairness-config-producer` does, at start and then every `intervalMs`:
 *
 * - a missing object, mandatory or suggested, is created;
 * - a mandatory object (exempt, catch-all) always gets the bootstrap spec back, and the annotation
 *   `apf.svc.io/autoupdate-spec: "true"`;
 * - a suggested object gets the bootstrap spec back when its annotation says "true"; without a
 *   boolean annotation, only while nobody has changed its spec (generation 1), and it then gets the
 *   annotation. "false" keeps an administrator's own spec.
 *
 * Writes go straight to the stores (the server's own writes), validated like any write.
 */
import type { Logger } from 'pino';
import { canonicalJson } from '../../api/json-walk.js';
import { StatusError } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { ConflictError } from '../../storage/types.js';
import { prepareForCreate, prepareForUpdate, validateOrThrow } from '../object-rules.js';
import type { ResourceStore } from '../resource-store.js';
import { AUTOUPDATE_ANNOTATION, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './bootstrap.js';

export interface KindStore {
  def: ResourceDefinition;
  store: ResourceStore;
}

/** Should a stored bootstrap object get the bootstrap spec back? (the established shouldUpdateSpec) */
export function shouldUpdateSpec(existing: SvcObject, mandatory: boolean): boolean {
  if (mandatory) return true;
  const value = existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION]?.trim().toLowerCase();
  if (value === 'true' || value === '1' || value === 't') return true;
  if (value === 'false' || value === '0' || value === 'f') return false;
  return (existing.metadata.generation ?? 1) === 1;
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

export class BootstrapEnsurer {
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  private stopped = false;

  constructor(
    private readonly flowSchemas: KindStore,
    private readonly priorityLevels: KindStore,
    private readonly now: () => number,
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  /** For the `poststarthook/priority-and-fairness-config-producer` check. */
  get ready(): boolean {
    return this.done;
  }

  /** One pass now (a failure is logged), then one every interval. */
  async start(): Promise<void> {
    await this.pass();
    const tick = () => {
      if (this.stopped) return;
      void this.pass().finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(tick, this.intervalMs);
        this.timer.unref();
      });
    };
    this.timer = setTimeout(tick, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async pass(): Promise<void> {
    try {
      await this.ensure();
      this.done = true;
    } catch (err) {
      this.logger.warn({ err }, 'ensuring the priority and fairness configuration failed; retrying');
    }
  }

  async ensure(): Promise<void> {
    const work: [KindStore, SvcObject, boolean][] = [
      ...mandatoryPriorityLevels().map((o) => [this.priorityLevels, o, true] as [KindStore, SvcObject, boolean]),
      ...suggestedPriorityLevels().map((o) => [this.priorityLevels, o, false] as [KindStore, SvcObject, boolean]),
      ...mandatoryFlowSchemas().map((o) => [this.flowSchemas, o, true] as [KindStore, SvcObject, boolean]),
      ...suggestedFlowSchemas().map((o) => [this.flowSchemas, o, false] as [KindStore, SvcObject, boolean]),
    ];
    await Promise.all(work.map(([kind, want, mandatory]) => this.reconcile(kind, want, mandatory)));
  }

  private async reconcile({ def, store }: KindStore, want: SvcObject, mandatory: boolean): Promise<void> {
    const name = want.metadata.name!;
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await store.getForUpdate('', name);
      try {
        if (!existing) {
          const obj = structuredClone(want);
          prepareForCreate(def, obj, this.now());
          validateOrThrow(def, obj);
          await store.create(obj, false);
          this.logger.info({ kind: def.kind, name }, 'created priority and fairness bootstrap object');
          return;
        }
        const current = existing.object;
        if (!shouldUpdateSpec(current, mandatory)) return;
        const wantSpec = structuredClone(want);
        def.defaults?.(wantSpec);
        const annotated = current.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'true';
        if (same(current['spec'], wantSpec['spec']) && annotated) return;
        const next = structuredClone(current);
        next['spec'] = wantSpec['spec'];
        next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [AUTOUPDATE_ANNOTATION]: 'true' };
        prepareForUpdate(def, next, current);
        validateOrThrow(def, next, current);
        const { value } = store.encode(next, existing);
        await store.replace(next, value, existing.revision, false);
        this.logger.info({ kind: def.kind, name }, 'restored priority and fairness bootstrap object');
        return;
      } catch (err) {
        // Another server wrote it meanwhile: look again.
        if (err instanceof ConflictError || (err instanceof StatusError && (err.reason === 'AlreadyExists' || err.reason === 'Conflict' || err.reason === 'NotFound'))) continue;
        throw err;
      }
    }
    throw new Error(`could not reconcile ${def.kind} ${name}: it kept changing`);
  }
}
