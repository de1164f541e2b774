/**
 * Keeps the system namespaces present: created on first start and recreated when missing (checked
 * every `intervalMs`). Readiness waits for the first pass.
 */
import type { Logger } from 'pino';
import type { ResourceDefinition, SvcObject } from '../api/types.js';
import { prepareForCreate, validateOrThrow } from './object-rules.js';
import type { ResourceStore } from './resource-store.js';

export const SYSTEM_NAMESPACES = ['default', 'svc-system', 'svc-public', 'svc-node-lease'];

export class SystemNamespaces {
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  constructor(
    private readonly def: ResourceDefinition,
    private readonly store: ResourceStore,
    private readonly now: () => number,
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  get ready(): boolean {
    return this.done;
  }

  async ensure(): Promise<void> {
    for (const name of SYSTEM_NAMESPACES) {
      const existing = await this.store.getForUpdate('', name);
      if (existing) continue;
      const ns: SvcObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
      prepareForCreate(this.def, ns, this.now());
      validateOrThrow(this.def, ns);
      try {
        await this.store.create(ns, false);
        this.logger.info({ namespace: name }, 'created system namespace');
      } catch (err) {
        if ((err as { status?: { reason?: string } }).status?.reason !== 'AlreadyExists') throw err;
      }
    }
    this.done = true;
  }

  start(): void {
    const tick = () => {
      this.ensure()
        .catch((err) => this.logger.warn({ err }, 'ensuring system namespaces failed; will retry'))
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
