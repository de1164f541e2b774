/**
 * Keeps the objects the system needs present: the system namespaces and the built-in priority
 * classes, created on first start and recreated when missing (checked every `intervalMs`).
 * Readiness waits for the first pass. Existing objects are never changed.
 */
import type { Logger } from 'pino';
import { SYSTEM_PRIORITY_CLASSES } from '../api/kinds/scheduling/priorityclass.js';
import type { ResourceDefinition, SvcObject } from '../api/types.js';
import { prepareForCreate, validateOrThrow } from './object-rules.js';
import type { ResourceStore } from './resource-store.js';

export const SYSTEM_NAMESPACES = ['default', 'svc-system', 'svc-public', 'svc-node-lease'];

/** One kind's required objects and where they live. */
export interface RequiredObjects {
  def: ResourceDefinition;
  store: ResourceStore;
  objects: () => SvcObject[];
}

export function systemNamespaceObjects(): SvcObject[] {
  return SYSTEM_NAMESPACES.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}

export function systemPriorityClassObjects(): SvcObject[] {
  return SYSTEM_PRIORITY_CLASSES.map((c) => ({
    apiVersion: 'scheduling.svc.io/v1', kind: 'PriorityClass', metadata: { name: c.name }, value: c.value, description: c.description,
  }));
}

export class SystemObjects {
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  constructor(
    private readonly required: readonly RequiredObjects[],
    private readonly now: () => number,
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  get ready(): boolean {
    return this.done;
  }

  async ensure(): Promise<void> {
    for (const { def, store, objects } of this.required) {
      for (const obj of objects()) {
        const name = obj.metadata.name ?? '';
        const existing = await store.getForUpdate('', name);
        if (existing) continue;
        prepareForCreate(def, obj, this.now());
        validateOrThrow(def, obj);
        try {
          await store.create(obj, false);
          this.logger.info({ kind: def.kind, name }, 'created system object');
        } catch (err) {
          if ((err as { status?: { reason?: string } }).status?.reason !== 'AlreadyExists') throw err;
        }
      }
    }
    this.done = true;
  }

  start(): void {
    const tick = () => {
      this.ensure()
        .catch((err) => this.logger.warn({ err }, 'ensuring system objects failed; will retry'))
        .finally(() => {
          this.timer = setTimeout(tick, this.intervalMs);
          this.timer.unref();
        });
    };
    this.timer = setTimeout(tick, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
