/**
 * `/debug/pprof/` for node (served when --profiling is on).
 *
 * The paths follow the established layout, but the formats are V8's, not pprof's:
 * - `/debug/pprof/`                    an HTML index of the profiles below.
 * - `/debug/pprof/profile?seconds=N`   a CPU profile of N seconds (default 30, 1..300) as a
 *                                      `.cpuprofile` JSON document ({ nodes, startTime, endTime,
 *                                      samples, timeDeltas }); open it in Chrome DevTools
 *                                      (Performance panel) or VS Code.
 * - `/debug/pprof/heap`                a V8 heap snapshot (`.heapsnapshot` JSON), streamed as it is
 *                                      taken; open it in Chrome DevTools (Memory panel).
 * - `/debug/pprof/cmdline`             the process command line, NUL-separated.
 * Only one CPU profile runs at a time; a second request gets 409.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { Session } from 'node:inspector';

export type ProfilingRequest = IncomingMessage | Http2ServerRequest;
/** What the handler uses of a response; node's HTTP/1.1 and HTTP/2 responses both fit. */
export interface ProfilingResponse {
  writeHead(code: number, headers?: Record<string, string>): unknown;
  write(chunk: Buffer | string): boolean;
  end(chunk?: Buffer | string): unknown;
}

/** Returns true when the request was for /debug/pprof and has been answered. */
export type ProfilingHandler = (req: ProfilingRequest, res: ProfilingResponse) => Promise<boolean>;

const PREFIX = '/debug/pprof';

export interface ProfilingHandlerOptions {
  /** Upper bound for ?seconds=; default 300. */
  maxSeconds?: number;
}

export function createProfilingHandler(options: ProfilingHandlerOptions = {}): ProfilingHandler {
  const maxSeconds = options.maxSeconds ?? 300;
  let cpuBusy = false;

  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path !== PREFIX && !path.startsWith(`${PREFIX}/`)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return true;
    }
    const name = path.slice(PREFIX.length).replace(/^\/+/, '');
    switch (name) {
      case '':
        send(res, 200, 'text/html; charset=utf-8', INDEX);
        return true;
      case 'cmdline':
        send(res, 200, 'text/plain; charset=utf-8', process.argv.join('\0'));
        return true;
      case 'profile': {
        const raw = url.searchParams.get('seconds') ?? '30';
        const seconds = Number(raw);
        if (!/^\d+(\.\d+)?$/.test(raw) || seconds <= 0 || seconds > maxSeconds) {
          send(res, 400, 'text/plain; charset=utf-8', `seconds must be a number in (0, ${maxSeconds}]\n`);
          return true;
        }
        if (cpuBusy) {
          send(res, 409, 'text/plain; charset=utf-8', 'a CPU profile is already being taken\n');
          return true;
        }
        cpuBusy = true;
        try {
          const profile = await takeCpuProfile(seconds * 1000);
          send(res, 200, 'application/json', JSON.stringify(profile), {
            'content-disposition': 'attachment; filename="profile.cpuprofile"',
          });
        } catch (e) {
          send(res, 500, 'text/plain; charset=utf-8', `could not take a CPU profile: ${(e as Error).message}\n`);
        } finally {
          cpuBusy = false;
        }
        return true;
      }
      case 'heap':
        await streamHeapSnapshot(res);
        return true;
      default:
        send(res, 404, 'text/plain; charset=utf-8', `unknown profile ${JSON.stringify(name)}\n`);
        return true;
    }
  };
}

const INDEX = `<!DOCTYPE html>
<html><head><title>/debug/pprof/</title></head><body>
<p>Profiles (V8 formats; open them in Chrome DevTools):</p>
<ul>
<li><a href="profile?seconds=30">profile</a>: CPU profile (.cpuprofile JSON); ?seconds=N</li>
<li><a href="heap">heap</a>: heap snapshot (.heapsnapshot JSON)</li>
<li><a href="cmdline">cmdline</a>: the command line</li>
</ul>
</body></html>
`;

function send(res: ProfilingResponse, status: number, type: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...extra });
  res.end(body);
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T)));
  });
}

/** A V8 CPU profile of `ms` milliseconds (the `.cpuprofile` document). */
export async function takeCpuProfile(ms: number): Promise<{ nodes: unknown[]; startTime: number; endTime: number }> {
  const session = new Session();
  session.connect();
  try {
    await post(session, 'Profiler.enable');
    await post(session, 'Profiler.start');
    await new Promise((r) => setTimeout(r, ms));
    const { profile } = await post<{ profile: { nodes: unknown[]; startTime: number; endTime: number } }>(session, 'Profiler.stop');
    await post(session, 'Profiler.disable');
    return profile;
  } finally {
    session.disconnect();
  }
}

/** Streams a heap snapshot to `res` chunk by chunk. */
async function streamHeapSnapshot(res: ProfilingResponse): Promise<void> {
  const r = res;
  const session = new Session();
  session.connect();
  r.writeHead(200, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-disposition': 'attachment; filename="heap.heapsnapshot"',
  });
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => {
    r.write(m.params.chunk);
  });
  try {
    await post(session, 'HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  } finally {
    session.disconnect();
    r.end();
  }
}
