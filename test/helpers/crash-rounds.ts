/**
 * Rounds of kill -9 under load, for the crash-consistency test (test/reliability/): a `CrashSubject`
 * is the process killed (an `apiserver`, `svc up`, etcd) with how to start it again on the same
 * data; `runCrashRounds` kills it during the writes of a `CrashWorkload`, restarts it, and checks
 * after each restart: every acknowledged write stored with its value (nothing half-written), later
 * writes above every resourceVersion acknowledged before the kill, a watch resumed from its last
 * resourceVersion equal to a fresh list and holding every acknowledged write once, and the
 * Deployments converged (no duplicate ReplicaSets, no extra pods). Each check's failures are
 * collected; the test asserts there are none and prints the figures.
 *
 * `startDaemons` runs, against a bare `apiserver`, what `svc up` runs in-process: a controller
 * manager, a scheduler and simulated nodes, one of each, leader election off (a single replica has
 * nobody to hand over to, and a lease lost while the apiserver restarts would make it exit).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiHttp, type Endpoint } from './api-http.js';
import { freePort, startApiServer, type ApiServerProcess } from './apiserver.js';
import { eventually } from './client.js';
import { cmVersion, CrashWorkload, REV_ANNOTATION, type WorkloadOptions } from './crash-workload.js';
import { workloadState } from './deployment-convergence.js';
import { ResumingWatch } from './resuming-watch.js';
import { soak } from './soak.js';
import { CONTROLLER_MANAGER_BIN, SCHEDULER_BIN, startExecutable, startSvc, type SvcProcess } from './svc-process.js';
import { adminConfigOf } from './topology.js';

/** The simulated nodes' short delays (pods run within tens of ms, stop within 100 ms). */
export const FAST_NODE_FLAGS = ['--image-pull-delay=20ms', '--container-start-delay=10ms', '--container-stop-delay=100ms'];

export interface CrashSubject {
  label: string;
  /** Where the API is served (the same before and after a restart). */
  endpoint(): Endpoint;
  /** Sends SIGKILL at once (before its first await) and resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same data; resolves when the API serves again. */
  restart(): Promise<void>;
}

export interface CrashFigures {
  label: string;
  rounds: number;
  acks: number;
  /** Acknowledged states read back right after a restart and found as acknowledged. */
  checked: number;
  /** Writes without an answer, read back and found old or new. */
  unanswered: number;
  lost: number;
  watchEvents: number;
  watchResumes: number;
  recoverMs: number[];
  convergeMs: number[];
  violations: string[];
}

export interface RoundOptions {
  rounds: number;
  /** Writes acknowledged before each kill (the kill comes at a random moment after that). */
  acksBeforeKill: number;
  /** Writes acknowledged after each restart, before the checks. */
  acksAfterRestart: number;
  convergeTimeoutMs: number;
  log: (line: string) => void;
}

/** The load of every crash-consistency variant: 32 writers over 128 ConfigMaps, 3 Deployments of 1-3 replicas churning. */
export const CRASH_WORKLOAD: WorkloadOptions = { writers: 32, namesPerWriter: 4, deployments: 3, maxReplicas: 3, deployStepMs: 300 };

/** The rounds of every variant: 1 in `npm test`, the 20 with SOAK=1. */
export function crashRounds(tag: string): RoundOptions {
  return {
    rounds: soak(1, 20),
    acksBeforeKill: soak(60, 200),
    acksAfterRestart: soak(60, 200),
    convergeTimeoutMs: 90_000,
    log: (l) => console.log(`[${tag}] ${l}`),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2]! : Math.round((s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};

/** How long the writers and the watch get to stop once the rounds end (or fail). */
const STOP_WITHIN_MS = 60_000;

export async function runCrashRounds(subject: CrashSubject, http: ApiHttp, workload: CrashWorkload, o: RoundOptions): Promise<CrashFigures> {
  const f: CrashFigures = { label: subject.label, rounds: 0, acks: 0, checked: 0, unanswered: 0, lost: 0, watchEvents: 0, watchResumes: 0, recoverMs: [], convergeMs: [], violations: [] };
  const watch = new ResumingWatch(http, workload.ownCmsPath, (obj) => cmVersion(obj));
  await workload.setUp();
  await watch.start();
  let reported = 0;
  let checkedWrites = 0;
  try {
    for (let round = 1; round <= o.rounds; round++) {
      workload.start();
      await workload.waitForAcks(workload.acks, o.acksBeforeKill);
      await sleep(Math.random() * 500);
      const killed = subject.kill();
      workload.hold();
      const t0 = Date.now();
      await killed;
      await subject.restart();
      http.use(subject.endpoint());
      const recover = Date.now() - t0;
      f.recoverMs.push(recover);
      await workload.parked();
      const checked = await workload.verifyStored();
      f.checked += checked;
      workload.release();
      const tWrites = Date.now();
      await workload.waitForAcks(workload.acks, o.acksAfterRestart);
      await workload.stop();
      const writesMs = Date.now() - tWrites;

      // The watch, resumed across the kill, against a fresh list and the acknowledged writes.
      const fresh = await http.call('GET', workload.ownCmsPath);
      let diff = '';
      await eventually(() => (diff = watch.differences(fresh.json.items)) === '', 30_000, 'the resumed watch to equal a fresh list').catch(() => {
        watch.violations.push(`round ${round}: the watch differs from a fresh list: ${diff}`);
      });
      // Each write reported once (a write missed in one round stays missed in the next).
      const missing = watch.missing(workload.ackedWrites.slice(checkedWrites));
      checkedWrites = workload.ackedWrites.length;
      if (missing.length) watch.violations.push(`round ${round}: ${missing.length} acknowledged writes never seen by the watch: ${JSON.stringify(missing.slice(0, 5))}`);

      // The Deployments, no longer changed, converge.
      const t1 = Date.now();
      let state = { pending: '?', duplicates: [] as string[], pods: 0 };
      await eventually(
        async () => {
          state = await workloadState(http, workload.namespace, REV_ANNOTATION);
          if (state.duplicates.length) return true;
          return state.pending === '';
        },
        o.convergeTimeoutMs,
        'the Deployments to converge',
      ).catch(() => workload.violations.push(`round ${round}: not converged after ${o.convergeTimeoutMs} ms: ${state.pending}`));
      workload.violations.push(...state.duplicates.map((d) => `round ${round}: duplicate ReplicaSets: ${d}`));
      const converge = Date.now() - t1;
      f.convergeMs.push(converge);
      f.rounds = round;
      o.log(
        `${subject.label} round ${round}: serving again ${recover} ms after the kill; ${checked} acknowledged states read back; ${o.acksAfterRestart} writes after it in ${writesMs} ms; ` +
          `${workload.acks} writes acknowledged so far, ${workload.unknownResolved} unanswered resolved; converged in ${converge} ms (${state.pods} pods); ` +
          `watch ${watch.events} events, ${watch.resumes} resumes; violations ${workload.violations.length + watch.violations.length}`,
      );
      const violations = [...workload.violations, ...watch.violations];
      for (const v of violations.slice(reported)) o.log(`${subject.label} round ${round}: VIOLATION ${v}`);
      reported = violations.length;
      if (violations.length > 20) break;
    }
  } finally {
    // A failure between a kill and the release (a restart that did not come up) left the writers at
    // the gate, and one with a write left unknown retries it until the server answers: bounded, so
    // the failure is reported instead of the test hanging.
    workload.release();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), STOP_WITHIN_MS)));
    const stopped = await Promise.race([Promise.all([workload.stop(), watch.stop()]).then(() => true), late]);
    clearTimeout(timer);
    if (!stopped) o.log(`${subject.label}: the writers and the watch had not stopped ${STOP_WITHIN_MS} ms after the rounds ended`);
  }
  f.acks = workload.acks;
  f.unanswered = workload.unknownResolved;
  f.watchEvents = watch.events;
  f.watchResumes = watch.resumes;
  f.violations = [...workload.violations, ...watch.violations];
  f.lost = workload.lost;
  return f;
}

/** The `[figure]` lines of one subject's rounds. */
export function printFigures(f: CrashFigures): void {
  const p = (s: string) => console.log(`[figure] crash consistency, ${f.label}: ${s}`);
  p(`rounds ${f.rounds}`);
  p(`acknowledged writes ${f.acks}, acknowledged states read back after restarts ${f.checked}, lost ${f.lost}`);
  p(`writes without an answer resolved (old or new value found) ${f.unanswered}`);
  p(`watch events ${f.watchEvents} over ${f.watchResumes} resumes, gaps/duplicates ${f.violations.filter((v) => /watch|duplicate or out of order|410/.test(v)).length}`);
  p(`serving again after kill -9: median ${median(f.recoverMs)} ms, min ${Math.min(...f.recoverMs)} ms, max ${Math.max(0, ...f.recoverMs)} ms`);
  p(`Deployments converged after churn stopped: median ${median(f.convergeMs)} ms, min ${Math.min(...f.convergeMs)} ms, max ${Math.max(0, ...f.convergeMs)} ms`);
  p(`violations ${f.violations.length}`);
}

export interface Daemons {
  processes: SvcProcess[];
  /** Those that exited (none should: they wait out the apiserver's restarts). */
  exited(): string[];
  stop(): Promise<void>;
}

/** A controller manager, a scheduler and simulated nodes against the apiserver of `adminConfig`. */
export async function startDaemons(adminConfig: string): Promise<Daemons> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-crash-daemons-'));
  const schedulerConfig = join(dir, 'scheduler.yaml');
  writeFileSync(schedulerConfig, ['apiVersion: scheduler.config.svc.io/v1beta1', 'kind: SchedulerConfiguration', 'clientConnection:', `  svcconfig: ${adminConfig}`, ''].join('\n'));
  const processes: SvcProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const manager = startExecutable(CONTROLLER_MANAGER_BIN, [`--svcconfig=${adminConfig}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, '--leader-elect=false']);
    processes.push(manager);
    const scheduler = startExecutable(SCHEDULER_BIN, [`--config=${schedulerConfig}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, '--port=0', '--leader-elect=false']);
    processes.push(scheduler);
    processes.push(startSvc(['nodes', `--svcconfig=${adminConfig}`, ...FAST_NODE_FLAGS]));
    await manager.waitFor((l) => l.msg === 'controller manager started', 60_000, 'controller manager started');
    await scheduler.waitFor((l) => l.msg === 'scheduler started', 60_000, 'scheduler started');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    processes,
    exited: () => processes.filter((p) => p.proc.exitCode !== null || p.proc.signalCode !== null).map((p) => `pid ${p.pid} (${p.proc.exitCode ?? p.proc.signalCode}): ${p.output().slice(-1500)}`),
    stop,
  };
}

export interface ApiServerCluster {
  /** kill -9 of the apiserver; a restart on the same port, data and certificates. */
  subject: CrashSubject;
  http: ApiHttp;
  daemons: Daemons;
  /** The apiserver running now (undefined between a kill and its restart). */
  server(): ApiServerProcess | undefined;
  stop(): Promise<void>;
}

/** An `apiserver` (flags `args`) with `startDaemons` against it, and an ApiHttp on it. */
export async function startApiServerCluster(label: string, args: string[] = []): Promise<ApiServerCluster> {
  let server: ApiServerProcess | undefined = await startApiServer({ args });
  const { dataDir, certDir, port } = server;
  const cleanup = () => {
    for (const d of [dataDir, certDir]) rmSync(d, { recursive: true, force: true });
  };
  let daemons: Daemons;
  try {
    daemons = await startDaemons(await adminConfigOf(server));
  } catch (err) {
    await server.stop('SIGKILL');
    cleanup();
    throw err;
  }
  const http = new ApiHttp({ url: server.url, caFile: server.caFile });
  return {
    subject: {
      label,
      endpoint: () => ({ url: server!.url, caFile: server!.caFile }),
      async kill() {
        const s = server!;
        server = undefined;
        await s.stop('SIGKILL');
      },
      async restart() {
        server = await startApiServer({ port, dataDir, certDir, args });
      },
    },
    http,
    daemons,
    server: () => server,
    async stop() {
      await http.close();
      await daemons.stop();
      await server?.stop('SIGKILL');
      cleanup();
    },
  };
}
