/**
 * Every open watch, so a graceful shutdown can end them all cleanly and /metrics can count them;
 * other streams that must end at shutdown (a followed pods/log) register too, uncounted.
 */
import type { ResourceDefinition } from '../api/types.js';

export interface ActiveWatch {
  resource: string;
  /** The definition watched, so the watches of a removed custom resource can be ended. */
  def?: ResourceDefinition;
  /** Ends the stream cleanly (the client sees a normal end of response). */
  end(): void;
  /** False for a stream that is not a watch (not in apiserver_registered_watchers). */
  counted?: boolean;
}

export class WatchRegistry {
  private readonly open = new Set<ActiveWatch>();

  add(w: ActiveWatch): () => void {
    this.open.add(w);
    return () => this.open.delete(w);
  }

  get size(): number {
    return this.open.size;
  }

  countsByResource(): Map<string, number> {
    const m = new Map<string, number>();
    for (const w of this.open) if (w.counted !== false) m.set(w.resource, (m.get(w.resource) ?? 0) + 1);
    return m;
  }

  endAll(): void {
    for (const w of [...this.open]) w.end();
  }

  /** Ends the watches whose definition matches (e.g. a custom resource version no longer served). */
  endWhere(match: (def: ResourceDefinition) => boolean): void {
    for (const w of [...this.open]) if (w.def && match(w.def)) w.end();
  }
}
