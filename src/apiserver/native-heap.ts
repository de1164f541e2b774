/**
 * Gives the C allocator's free memory back to the system, whichever allocator the process runs on:
 * jemalloc (the launchers preload it when Debian's `libjemalloc2` is installed: docs/running.md)
 * purges its arenas (`mallctl("arena.4096.purge")`); glibc trims (`malloc_trim(0)`). Both are called
 * through koffi (a maintained FFI with prebuilt binaries: nothing is compiled at install).
 *
 * Why: the TLS state of a connection, HTTP/2 sessions, SQLite's page cache and every Buffer under
 * 128 KiB are C allocations. When a burst of load ends most are freed, but glibc returns only whole
 * free pages, and its one main heap interleaves what lives long (SQLite's pages, pooled parsers)
 * with what died (each connection's buffers): measured on the overload suite's full form (1,400
 * connections, 562 KiB LISTs, watch-lists), glibc's `[heap]` still held 91 MiB resident 60 s after
 * a round, every page of it touched by a live block, and `malloc_trim(0)` gave back nothing more
 * (`malloc_info`: 342 MB of heap, 274 MB of it free, 68 MB in use). jemalloc keeps blocks of one
 * size together and returns emptied pages by itself (its background thread, `background_thread:true`
 * in the launchers' `MALLOC_CONF`): the same round ended at RSS -2.4% of its start instead of +52%.
 *
 * Contract: `nativeHeapTrimmer()` answers undefined where neither allocator is found (musl, macOS,
 * Windows) or koffi cannot load: the caller then simply does not trim. `trim()` runs the call on a
 * libuv worker thread (koffi's async calls), never on the event loop: on a heap of hundreds of MiB
 * it takes tens of milliseconds (the allocator takes each arena's lock in turn, so an allocation on
 * the event loop may wait for its part of it). One trim at a time; a trim asked for meanwhile
 * answers undefined. `nativeAllocator()` names the allocator in use, for the start-up log.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface NativeHeapTrimmer {
  /** Trims every arena; the call's duration, or undefined when a trim is already running. */
  trim(): Promise<{ ms: number } | undefined>;
}

interface AsyncForeignFunction {
  async(...args: [...unknown[], (err: unknown, result: number) => void]): void;
}

interface Koffi {
  load(path: string): { func(signature: string): AsyncForeignFunction };
}

/** Linux with glibc: the C library the trim call belongs to (musl has no malloc_trim). */
function glibcRuntime(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime;
}

let jemalloc: string | undefined | null = null;

/** The path of jemalloc when it is mapped into this process (preloaded), else undefined; read once. */
function jemallocPath(): string | undefined {
  if (jemalloc !== null) return jemalloc;
  jemalloc = undefined;
  if (process.platform !== 'linux') return jemalloc;
  try {
    jemalloc = /\s(\/\S*libjemalloc\.so[.\d]*)$/m.exec(readFileSync('/proc/self/maps', 'utf8'))?.[1];
  } catch {
    // no /proc: not on jemalloc as far as we can tell
  }
  return jemalloc;
}

export type NativeAllocator = 'jemalloc' | 'glibc' | 'other';

let allocator: NativeAllocator | undefined;

/** The C allocator this process runs on. */
export function nativeAllocator(): NativeAllocator {
  return (allocator ??= jemallocPath() ? 'jemalloc' : glibcRuntime() ? 'glibc' : 'other');
}

/** `arena.<MALLCTL_ARENAS_ALL>.purge`: every arena's unused dirty pages back to the system. */
const PURGE_ALL_ARENAS = 'arena.4096.purge';

let loaded: NativeHeapTrimmer | undefined | null = null;

/** The process's trimmer (loaded once), or undefined where the allocator has none. */
export function nativeHeapTrimmer(): NativeHeapTrimmer | undefined {
  if (loaded !== null) return loaded;
  loaded = undefined;
  let call: (done: (err: unknown, result: number) => void) => void;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as Koffi;
    const path = jemallocPath();
    if (path) {
      const mallctl = koffi.load(path).func('int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)');
      call = (done) => mallctl.async(PURGE_ALL_ARENAS, null, null, null, 0, done);
    } else if (glibcRuntime()) {
      const mallocTrim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
      call = (done) => mallocTrim.async(0, done);
    } else return loaded;
  } catch {
    return loaded;
  }
  let running = false;
  loaded = {
    trim() {
      if (running) return Promise.resolve(undefined);
      running = true;
      const started = performance.now();
      return new Promise((resolve, reject) => {
        call((err) => {
          running = false;
          if (err) reject(err instanceof Error ? err : new Error(String(err)));
          else resolve({ ms: performance.now() - started });
        });
      });
    },
  };
  return loaded;
}
