/**
 * Gives the C allocator's free memory back to the system: glibc's `malloc_trim(0)`, called through
 * koffi (a maintained FFI with prebuilt binaries: nothing is compiled at install).
 *
 * Why: the TLS state of a connection, HTTP/2 sessions, and every Buffer under the mmap threshold
 * (128 KiB, set by the launchers: docs/reliability.md, "Memory under load") live in glibc's heap.
 * When a burst of load ends they are freed, but glibc returns only the top of its heap to the
 * system; free blocks below the highest one still in use stay resident. Measured on the overload
 * suite's full form (400/200 in-flight, 1,400 connections, streamed LISTs and watch-lists): RSS
 * 130 MiB before the first round, 366 MiB 60 s after it, of which 259 MiB was glibc's `[heap]`
 * while V8's heap and the Buffers had been collected. `malloc_trim(0)` releases every whole free
 * page in every arena (glibc >= 2.8 gives back the middle of the heap too, with MADV_DONTNEED).
 *
 * Contract: `nativeHeapTrimmer()` answers undefined where there is no glibc (musl, macOS, Windows)
 * or koffi cannot load: the caller then simply does not trim. `trim()` runs the call on a libuv
 * worker thread (koffi's async calls), never on the event loop: on a heap of hundreds of MiB it
 * takes tens of milliseconds (glibc takes each arena's lock in turn, so an allocation on the event
 * loop may wait for the main arena's part of it). One trim at a time; a trim asked for meanwhile
 * answers undefined.
 */
import { createRequire } from 'node:module';

export interface NativeHeapTrimmer {
  /** Trims every arena; the call's duration, or undefined when a trim is already running. */
  trim(): Promise<{ ms: number } | undefined>;
}

interface AsyncForeignFunction {
  async(pad: number, done: (err: unknown, result: number) => void): void;
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

let loaded: NativeHeapTrimmer | undefined | null = null;

/** The process's trimmer (loaded once), or undefined where the C library has no malloc_trim. */
export function nativeHeapTrimmer(): NativeHeapTrimmer | undefined {
  if (loaded !== null) return loaded;
  loaded = undefined;
  if (!glibcRuntime()) return loaded;
  let mallocTrim: AsyncForeignFunction;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as Koffi;
    mallocTrim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
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
        mallocTrim.async(0, (err) => {
          running = false;
          if (err) reject(err instanceof Error ? err : new Error(String(err)));
          else resolve({ ms: performance.now() - started });
        });
      });
    },
  };
  return loaded;
}
