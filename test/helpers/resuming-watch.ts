/**
 * A watch that a client keeps across server (and store) restarts, as a reflector does without ever
 * re-listing: it lists once, watches from the list's resourceVersion, and whenever the stream ends
 * (the server was killed, the store went away) resumes from the last resourceVersion it saw (an
 * event's or a bookmark's). It checks, as it goes, that the resumed stream is exactly once:
 * - no event at or below the last one seen (a duplicate, or one out of order);
 * - no `410 Expired` (the store keeps the history a restart needs);
 * - every object in an event is a whole write (`validate`);
 * and keeps a cache (name -> resourceVersion) to compare with a fresh list: a missed event shows
 * there as a difference, and `missing()` says which acknowledged writes were never seen.
 */
import type { ApiHttp } from './api-http.js';
import { jsonLines, type WatchLine } from './watch.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SeenWrite {
  name: string;
  kind: 'put' | 'delete';
  rv: number;
}

export class ResumingWatch {
  readonly violations: string[] = [];
  /** Events applied (not bookmarks). */
  events = 0;
  /** Times a stream was opened again (answered 200) from a resourceVersion after one ended. */
  resumes = 0;
  private readonly cache = new Map<string, number>();
  private readonly puts = new Map<string, Set<number>>();
  private readonly deletes = new Map<string, number[]>();
  private lastRv = '';
  private lastEventRv = 0;
  private stopped = false;
  private ac = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly http: ApiHttp, private readonly path: string, private readonly validate: (obj: any) => void) {}

  async start(): Promise<void> {
    const list = await this.http.call('GET', this.path);
    if (list.status !== 200) throw new Error(`list ${this.path}: ${list.status} ${list.text.slice(0, 200)}`);
    for (const item of list.json.items) this.cache.set(item.metadata.name, Number(item.metadata.resourceVersion));
    this.lastRv = String(list.json.metadata.resourceVersion);
    this.lastEventRv = Number(this.lastRv);
    this.loop = this.run();
  }

  /** The resourceVersion the next resume starts from. */
  get resourceVersion(): string {
    return this.lastRv;
  }

  /** Ends the stream in use (as a connection lost would); the loop resumes from the last version. */
  interrupt(): void {
    this.ac.abort();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ac.abort();
    await this.loop;
  }

  /** '' when the cache equals `items` (a fresh list), else what differs. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  differences(items: any[]): string {
    const want = new Map<string, number>(items.map((i) => [String(i.metadata.name), Number(i.metadata.resourceVersion)]));
    const out: string[] = [];
    for (const [name, rv] of want) if (this.cache.get(name) !== rv) out.push(`${name}: list ${rv}, watch ${this.cache.get(name) ?? 'absent'}`);
    for (const [name, rv] of this.cache) if (!want.has(name)) out.push(`${name}: list absent, watch ${rv}`);
    return out.slice(0, 10).join('; ') + (out.length > 10 ? ` (${out.length} in all)` : '');
  }

  /** The writes in `writes` this watch never delivered (a put by its resourceVersion, a delete after its last one). */
  missing(writes: readonly SeenWrite[]): SeenWrite[] {
    return writes.filter((w) => (w.kind === 'put' ? !this.puts.get(w.name)?.has(w.rv) : !(this.deletes.get(w.name) ?? []).some((rv) => rv >= w.rv)));
  }

  private async run(): Promise<void> {
    let opened = 0;
    while (!this.stopped) {
      this.ac = new AbortController();
      try {
        const res = await this.http.stream(`${this.path}${this.path.includes('?') ? '&' : '?'}watch=1&allowWatchBookmarks=true&resourceVersion=${this.lastRv}`, this.ac.signal);
        if (res.statusCode !== 200) {
          const text = await res.body.text();
          if (res.statusCode === 410) this.violations.push(`resume from ${this.lastRv}: 410 ${text.slice(0, 200)}`);
          await sleep(200);
          continue;
        }
        if (opened++ > 0) this.resumes++;
        for await (const event of jsonLines<WatchLine>(res.body)) {
          if (!this.apply(event)) this.ac.abort();
        }
      } catch {
        // Reset by a kill, refused while the server is down, or aborted: resume below.
      }
      if (!this.stopped) await sleep(100);
    }
  }

  /** Applies one watch event; false when the stream must be resumed (an ERROR event). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private apply(ev: { type: string; object: any }): boolean {
    if (ev.type === 'ERROR') {
      // A 410 means the history the resume needs is gone: a gap. Other errors (the store is down)
      // end the stream; the client resumes from where it was.
      if (ev.object?.code === 410) this.violations.push(`watch from ${this.lastRv}: 410 ${ev.object?.message}`);
      return false;
    }
    const rv = Number(ev.object?.metadata?.resourceVersion);
    if (ev.type === 'BOOKMARK') {
      if (rv > Number(this.lastRv)) this.lastRv = String(rv);
      return true;
    }
    const name = String(ev.object?.metadata?.name);
    if (!(rv > this.lastEventRv)) this.violations.push(`${ev.type} ${name}@${rv} after ${this.lastEventRv}: duplicate or out of order`);
    if (ev.type !== 'DELETED') {
      try {
        this.validate(ev.object);
      } catch (err) {
        this.violations.push(`watch ${ev.type} ${name}: ${(err as Error).message}`);
      }
    }
    this.lastEventRv = Math.max(this.lastEventRv, rv);
    if (rv > Number(this.lastRv)) this.lastRv = String(rv);
    this.events++;
    if (ev.type === 'DELETED') {
      this.cache.delete(name);
      this.deletes.set(name, [...(this.deletes.get(name) ?? []), rv]);
    } else {
      this.cache.set(name, rv);
      let s = this.puts.get(name);
      if (!s) this.puts.set(name, (s = new Set()));
      s.add(rv);
    }
    return true;
  }
}
