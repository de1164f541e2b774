/**
 * `npm run bench`: starts the real apiserver, measures creates, gets, lists, watch delivery and
 * memory with 100,000 ConfigMaps, then the same client against a bare Node.js HTTPS server (the
 * ceiling), and writes docs/benchmarks.md. Options (flag or environment):
 *   --quick    | BENCH_QUICK=1    skip the 100,000-ConfigMap memory step
 *   --cpu-prof | BENCH_PROFILE=1  run the apiserver under `node --cpu-prof`; report goes beside the profile
 *   --only=runtime | BENCH_ONLY=runtime  only the actor-runtime part; replaces its section of docs/benchmarks.md
 *   --only=protobuf | BENCH_ONLY=protobuf  only the Protobuf part (codec in process, lists served by a fresh
 *                                          apiserver); replaces its section of docs/benchmarks.md
 *   --only=storms | BENCH_ONLY=storms  only the memory-under-storms part (watch storm with initial state,
 *                                      2x in-flight overload) against a fresh apiserver; replaces its section
 *   --only=scheduler | BENCH_ONLY=scheduler  only the scheduler part (SchedulingBasic at 5,000 nodes in process
 *                                          and over HTTPS, anti-affinity and topology-spread variants on
 *                                          1,000 nodes); replaces its section of docs/benchmarks.md
 *   --only=large-objects | BENCH_ONLY=large-objects  only the large-object part (how long writes of a ConfigMap
 *                                          stored at 3.1 MB hold up /healthz) against a fresh apiserver; replaces its section
 *   --only=nodes | BENCH_ONLY=nodes  only the simulated-nodes part (pod startup latency on 500 nodes at 100 pods/s,
 *                                    the scale run: 5,000 nodes and 150,000 pods, about 12 min and 4 GiB);
 *                                    replaces its section of docs/benchmarks.md
 *   --only=nodeipam | BENCH_ONLY=nodeipam  only the node IPAM part (1,000 simulated nodes given pod CIDRs by the nodeipam
 *     controller: nodes allocated per second, and a restart); replaces its section of docs/benchmarks.md
 *   --only=controllers | BENCH_ONLY=controllers  only the controller-manager part (a Deployment of 1,000 on 500 nodes, its
 *                                    rolling update, 100 x 10 Deployments at once, RSS, CPU by layer); replaces its section
 *   --only=backup | BENCH_ONLY=backup  only the controller-authoring part (the guide's backup controller under svc run
 *                                    against svc up, 2,000 sources, documented and default client settings); replaces its section
 *   --only=services | BENCH_ONLY=services  only the Services part (create throughput with cluster-IP allocation against
 *                                    headless Services, 21,000 allocated and released, the repair loop's leak check); replaces its section
 *   --only=auth | BENCH_ONLY=auth  only the authentication part (creates and gets at the bench concurrency and watch delivery,
 *                                    open server vs client-certificate and token users under Node,RBAC); replaces its section
 *   --only=audit | BENCH_ONLY=audit  only the admission-and-audit part (ConfigMap creates: the default admission chain with
 *                                    Metadata audit to a file vs every default plugin off and no audit); replaces its section
 *   --only=volumes | BENCH_ONLY=volumes  only the volumes part (1,000 claims bound by the persistentvolume-binder,
 *     static and provisioned; replaces its section of docs/benchmarks.md)
 *   --only=nodelifecycle | BENCH_ONLY=nodelifecycle  only the node-failure part (1,000 nodes, 30,000 pods: a node's last
 *                      heartbeat to its pods running elsewhere; scale with BENCH_NODELIFECYCLE_NODES / _PODS)
 *   --only=durability | BENCH_ONLY=durability  only the durability part (write rate of the embedded store with and
 *                                    without --data-dir-fsync, over HTTPS and in process); replaces its section
 *   --only=quota | BENCH_ONLY=quota  only the resource-quota part (usage of 10,000 pods recalculated by the controller); replaces its section
 *   --only=cloud | BENCH_ONLY=cloud  only the cloud part (500 LoadBalancer Services made ready by the service controller against
 *     the simulated cloud, at 1 and 10 workers, with and without latency); replaces its section
 *   --only=hpa | BENCH_ONLY=hpa  only the autoscaling part (100 Deployments' HPAs reacting to a rise in usage); replaces its section
 *   BENCH_DATA_DIR=<dir>          parent of the apiserver's data and cert folders (default: OS temp dir)
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, type LoadResult } from './load.js';
import { measureApplies } from './measure-apply.js';
import { measureCodec, measureServedLists } from './measure-protobuf.js';
import { type ProtobufFigures, renderProtobufSection, spliceProtobufSection } from './report-protobuf.js';
import { measureCeiling } from './measure-ceiling.js';
import { configMapBody, createNamespace, measureCreates } from './measure-creates.js';
import { measureGets } from './measure-gets.js';
import { measureLists, measureSizedCeiling } from './measure-lists.js';
import { measureRss, type RssResult } from './measure-rss.js';
import { measureWatchFanout, type WatchOptions } from './measure-watch.js';
import { renderProfileSummary, summarizeCpuProfile } from './profile-summary.js';
import { measureRuntime } from './measure-runtime.js';
import { queueTargetMet, renderRuntimeSection, spliceRuntimeSection, spliceSection } from './report-runtime.js';
import { measureStorms, type StormFigures, type StormSettings, stormServerArgs } from './measure-storms.js';
import { renderStormsSection, STORMS_BEFORE, STORMS_HEADING } from './report-storms.js';
import { type BenchFigures, type BenchSettings, machineInfo, renderReport } from './report.js';
import { measureScheduling, type SchedulerBenchResult } from './measure-scheduler.js';
import { renderSchedulerSection, SCHEDULER_HEADING } from './report-scheduler.js';
import { SCHEDULER_NOTES } from './scheduler-notes.js';
import { startInProcessServer } from './in-process-server.js';
import { type LargeObjectFigures, measureLargeObjects } from './measure-large-objects.js';
import { measureScale, measureStartup, type NodesBenchSettings } from './measure-nodes.js';
import { NODES_HEADING, renderNodesSection } from './report-nodes.js';
import { measureControllers } from './measure-controllers.js';
import { measureNodeIpam, NODEIPAM_HEADING, renderNodeIpamSection } from './measure-nodeipam.js';
import { CLOUD_HEADING, measureCloud, renderCloudSection } from './measure-cloud.js';
import { measureNodeLifecycle, nodeLifecycleSettingsFromEnv } from './measure-nodelifecycle.js';
import { NODELIFECYCLE_HEADING, renderNodeLifecycleSection } from './report-nodelifecycle.js';
import { CONTROLLERS_HEADING, renderControllersSection } from './report-controllers.js';
import { measureBackup } from './measure-backup.js';
import { BACKUP_HEADING, renderBackupSection } from './report-backup.js';
import { measureServices } from './measure-services.js';
import { authRatios, measureAuth } from './measure-auth.js';
import { AUTH_HEADING, renderAuthSection } from './report-auth.js';
import { AUDIT_HEADING, auditKept, measureAudit, renderAuditSection } from './measure-audit.js';
import { renderServicesSection, SERVICES_HEADING } from './report-services.js';
import { LARGE_OBJECTS_HEADING, renderLargeObjectsSection } from './report-large-objects.js';
import { measureVolumes } from './measure-volumes.js';
import { renderVolumesSection, VOLUMES_HEADING } from './report-volumes.js';
import { measureDurability } from './measure-durability.js';
import { DURABILITY_HEADING, renderDurabilitySection } from './report-durability.js';
import { HPA_HEADING, measureHpa, measureQuota, QUOTA_HEADING, renderHpaSection, renderQuotaSection } from './measure-autoscaling.js';
import { connectInProcess } from '../src/cli/in-process-client.js';
import { connect, resources } from '../src/client/index.js';
import { ROOT, type ServerProcess, startApiServer, startBareServer, writeSvcconfigFor } from './server-process.js';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick') || process.env.BENCH_QUICK === '1';
const profile = args.has('--cpu-prof') || process.env.BENCH_PROFILE === '1';
const only = [...args].find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? process.env.BENCH_ONLY;
/** The parts that run alone (`--only=<name>`), each splicing its own section into docs/benchmarks.md. */
const PARTS_ALONE: Record<string, () => Promise<void>> = {
  runtime: mainRuntimeOnly,
  protobuf: mainProtobufOnly,
  storms: mainStormsOnly,
  scheduler: mainSchedulerOnly,
  'large-objects': mainLargeObjectsOnly,
  nodes: mainNodesOnly,
  controllers: mainControllersOnly,
  nodeipam: mainNodeIpamOnly,
  cloud: mainCloudOnly,
  nodelifecycle: mainNodeLifecycleOnly,
  backup: mainBackupOnly,
  services: mainServicesOnly,
  auth: mainAuthOnly,
  audit: mainAuditOnly,
  durability: mainDurabilityOnly,
  quota: mainQuotaOnly,
  hpa: mainHpaOnly,
  volumes: mainVolumesOnly,
};
if (only !== undefined && !Object.hasOwn(PARTS_ALONE, only)) {
  console.error(`--only / BENCH_ONLY: unknown part ${JSON.stringify(only)}; the parts that run alone are ${Object.keys(PARTS_ALONE).map((p) => JSON.stringify(p)).join(', ')}`);
  process.exit(2);
}

const CONCURRENCY = 32;
const WATCH_WARMUP = 10;
const settings: BenchSettings = {
  concurrency: CONCURRENCY,
  warmupCreates: 2_000,
  warmupGetMs: 3_000,
  ceilingWarmupMs: 3_000,
  createCount: 5_000,
  createRounds: 3,
  getDurationMs: 5_000,
  listItems: 5_000,
  listChunk: 500,
  listRuns: 10,
  applyObjects: 101,
  applyDurationMs: 5_000,
  protobufItems: 1_000,
  protobufCodecRuns: 25,
  protobufListConcurrency: 8,
  protobufServeMs: 2_000,
  protobufServeRounds: 3,
  watchers: 100,
  watchThreads: Number(process.env.BENCH_WATCH_THREADS ?? 2),
  watchWrites: 500,
  watchGapMs: 5,
  rssCount: 100_000,
  rssSettleMs: 10_000,
  dataDir: '',
};

const stormSettings: StormSettings = {
  objects: 3_000,
  objectBytes: 1_024,
  http1Watches: 450,
  http2Watches: 450,
  slowHttp1Watches: 50,
  slowHttp2Watches: 50,
  streamsPerSession: 100,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  overloadMs: 10_000,
  settleMs: 10_000,
  watchTimeoutMs: 180_000,
};

/** Round 0 goes to `bench`, the namespace the gets and lists then read. */
const createNamespaceName = (round: number) => (round === 0 ? 'bench' : `bench-${round + 1}`);
const log = (msg: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const rate = (r: LoadResult) => `${Math.round(r.perSecond)}/s p50 ${r.p50Ms.toFixed(2)} ms p99 ${r.p99Ms.toFixed(2)} ms (${r.requests} in ${r.seconds.toFixed(1)} s)`;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

const startedAt = new Date();
const loadAtStart = loadavg()[0]!;
const parent = process.env.BENCH_DATA_DIR ?? tmpdir();
mkdirSync(parent, { recursive: true });
const work = mkdtempSync(join(parent, 'svc-bench-'));
const dataDir = join(work, 'data');
const certDir = join(work, 'certs');
settings.dataDir = dataDir;
const profileDir = profile ? mkdtempSync(join(tmpdir(), 'svc-bench-profile-')) : undefined;

function watchOptions(pool: WatchOptions['writePool'], server: ServerProcess, watchPath: string, writePath: string, namespace: string): WatchOptions {
  return {
    writePool: pool,
    url: server.url,
    ca: server.ca,
    threads: settings.watchThreads,
    watchPath,
    writePath,
    writeBody: (name) => configMapBody(namespace, name),
    watchers: settings.watchers,
    warmupWrites: WATCH_WARMUP,
    writes: settings.watchWrites,
    gapMs: settings.watchGapMs,
    attachWaitMs: 3_000,
    timeoutMs: 10_000,
  };
}

/** `--only=runtime`: the actor-runtime part alone, spliced into the existing docs/benchmarks.md. */
async function mainRuntimeOnly(): Promise<void> {
  const runtime = await measureRuntime(parent, log);
  const section = renderRuntimeSection(runtime, { command: 'BENCH_ONLY=runtime npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceRuntimeSection(readFileSync(file, 'utf8'), section));
  log(`wrote the actor-runtime section of docs/benchmarks.md${queueTargetMet(runtime) ? '' : ' (the work-queue target was NOT met)'}`);
  rmSync(work, { recursive: true, force: true });
}

/** Codec figures in this process, then the pod list served by the apiserver behind `pool`. */
async function measureProtobufPart(pool: ReturnType<ServerProcess['pool']>): Promise<ProtobufFigures> {
  const codec = measureCodec(settings.protobufItems, settings.protobufCodecRuns);
  log(`${codec.items}-pod list: JSON ${codec.jsonBytes} B, encode ${codec.jsonEncodeMs.toFixed(1)} ms, decode ${codec.jsonDecodeMs.toFixed(1)} ms; Protobuf ${codec.protobufBytes} B, encode ${codec.protobufEncodeMs.toFixed(1)} ms, decode ${codec.protobufDecodeMs.toFixed(1)} ms`);
  const served = await measureServedLists(pool, { namespace: 'bench-protobuf', items: settings.protobufItems, concurrency: settings.protobufListConcurrency, durationMs: settings.protobufServeMs, rounds: settings.protobufServeRounds });
  log(`${settings.protobufItems}-pod list served: JSON ${rate(served.json)}; Protobuf ${rate(served.protobuf)}${served.table ? `; Table ${rate(served.table)}` : ''}`);
  return { codec, served, concurrency: settings.protobufListConcurrency, durationMs: settings.protobufServeMs, rounds: settings.protobufServeRounds };
}

/** `--only=protobuf`: the Protobuf part alone against a fresh apiserver, spliced into the existing docs/benchmarks.md. */
async function mainProtobufOnly(): Promise<void> {
  const api = await startApiServer({ dataDir, certDir });
  let protobuf: ProtobufFigures;
  try {
    const pool = api.pool(CONCURRENCY);
    await createNamespace(pool, 'bench-protobuf');
    protobuf = await measureProtobufPart(pool);
  } catch (err) {
    console.error(api.output().slice(-4000));
    throw err;
  } finally {
    const code = await api.stop();
    log(`apiserver stopped (exit ${code})`);
  }
  const section = renderProtobufSection(protobuf, { command: 'BENCH_ONLY=protobuf npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceProtobufSection(readFileSync(file, 'utf8'), section));
  log('wrote the Protobuf section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** The memory-under-storms part against its own fresh apiserver (it seeds, storms and overloads it). */
async function measureStormsPart(): Promise<StormFigures> {
  const stormWork = mkdtempSync(join(parent, 'svc-bench-storms-'));
  const api = await startApiServer({ dataDir: join(stormWork, 'data'), certDir: join(stormWork, 'certs'), args: stormServerArgs(stormSettings) });
  try {
    return await measureStorms(api, api.pool(16), stormSettings, log);
  } catch (err) {
    console.error(api.output().slice(-4000));
    throw err;
  } finally {
    const code = await api.stop();
    log(`apiserver stopped (exit ${code})`);
    rmSync(stormWork, { recursive: true, force: true });
  }
}

/** `--only=storms`: the memory-under-storms part alone, spliced into the existing docs/benchmarks.md. */
async function mainStormsOnly(): Promise<void> {
  const storms = await measureStormsPart();
  const section = renderStormsSection(storms, { command: 'BENCH_ONLY=storms npm run bench', date: startedAt, loadAtStart }, STORMS_BEFORE);
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), STORMS_HEADING, section));
  log('wrote the memory-under-storms section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=durability`: the embedded store's write rate with and without an fsync per commit, spliced into docs/benchmarks.md. */
async function mainDurabilityOnly(): Promise<void> {
  const figures = await measureDurability({ rounds: 3, apiCreates: 10_000, apiSequentialCreates: 1_000, storeCreates: 50_000, storeSequentialCreates: 5_000 }, log);
  const section = renderDurabilitySection(figures, { command: 'BENCH_ONLY=durability npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), DURABILITY_HEADING, section));
  log('wrote the durability section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=quota`: quota usage of 10,000 pods by the resourcequota controller, spliced into docs/benchmarks.md. */
async function mainQuotaOnly(): Promise<void> {
  const figures = await measureQuota(10_000, log);
  log(`quota: ${JSON.stringify(figures)}`);
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), QUOTA_HEADING, renderQuotaSection(figures, { command: 'BENCH_ONLY=quota npm run bench', date: startedAt, loadAtStart })));
  log('wrote the resource quota section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=hpa`: 100 Deployments' HPAs reacting to a rise in usage, spliced into docs/benchmarks.md. */
async function mainHpaOnly(): Promise<void> {
  const figures = await measureHpa(100, 10, log);
  log(`hpa: ${JSON.stringify(figures)}`);
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), HPA_HEADING, renderHpaSection(figures, { command: 'BENCH_ONLY=hpa npm run bench', date: startedAt, loadAtStart })));
  log('wrote the horizontal pod autoscaling section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=large-objects`: writes of one large ConfigMap against a fresh apiserver, spliced into docs/benchmarks.md. */
async function mainLargeObjectsOnly(): Promise<void> {
  const api = await startApiServer({ dataDir, certDir });
  let figures: LargeObjectFigures;
  try {
    figures = await measureLargeObjects(api, { labels: 140_000, pingEveryMs: 20, idleMs: 2_000 }, log);
  } catch (err) {
    console.error(api.output().slice(-4000));
    throw err;
  } finally {
    const code = await api.stop();
    log(`apiserver stopped (exit ${code})`);
  }
  const section = renderLargeObjectsSection(figures, { command: 'BENCH_ONLY=large-objects npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), LARGE_OBJECTS_HEADING, section));
  log('wrote the large-objects section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=nodes`: simulated nodes in process (startup latency, scale), spliced into docs/benchmarks.md. */
async function mainNodesOnly(): Promise<void> {
  const nodeSettings: NodesBenchSettings = { startupNodes: 500, startupRatePerSecond: 100, startupSeconds: 60, scaleNodes: 5_000, scalePods: 150_000, scaleConcurrency: 64 };
  const startup = await measureStartup(parent, nodeSettings, log);
  log(`nodes: startup p50 ${startup.p50Ms} ms, p99 ${startup.p99Ms} ms`);
  const scale = await measureScale(parent, nodeSettings, log);
  log(`nodes: scale ${JSON.stringify(scale)}`);
  const section = renderNodesSection({ settings: nodeSettings, startup, scale }, { command: 'BENCH_ONLY=nodes npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), NODES_HEADING, section));
  log('wrote the simulated-nodes section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** The guide's documented client settings for the backup example (docs/writing-controllers.md). */
export const DOCUMENTED_BACKUP_FLAGS = ['--svc-api-qps=200', '--svc-api-burst=400'];

async function mainBackupOnly(): Promise<void> {
  const figures = await measureBackup(2_000, [{ label: 'documented', flags: DOCUMENTED_BACKUP_FLAGS }, { label: 'defaults', flags: [] }], log);
  const section = renderBackupSection(figures, { command: 'BENCH_ONLY=backup npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), BACKUP_HEADING, section));
  log('wrote the controller-authoring section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

async function mainControllersOnly(): Promise<void> {
  const figures = await measureControllers(work, { nodes: 500, bigReplicas: 1_000, smallDeployments: 100, smallReplicas: 10 }, log);
  log(`controllers: ${JSON.stringify(figures)}`);
  const section = renderControllersSection(figures, { command: 'BENCH_ONLY=controllers npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), CONTROLLERS_HEADING, section));
  log('wrote the controller-manager section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

async function mainNodeIpamOnly(): Promise<void> {
  const figures = await measureNodeIpam({ nodes: 1_000, clusterCidr: '10.0.0.0/8', maskSize: 24 }, log);
  log(`nodeipam: ${JSON.stringify(figures)}`);
  const section = renderNodeIpamSection(figures, { command: 'BENCH_ONLY=nodeipam npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), NODEIPAM_HEADING, section));
  log('wrote the node IPAM section of docs/benchmarks.md');
}

async function mainCloudOnly(): Promise<void> {
  const figures = await measureCloud(500, log);
  log(`cloud: ${JSON.stringify(figures)}`);
  const section = renderCloudSection(figures, { command: 'BENCH_ONLY=cloud npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), CLOUD_HEADING, section));
  log('wrote the cloud section of docs/benchmarks.md');
}

async function mainVolumesOnly(): Promise<void> {
  const figures = await measureVolumes(1_000, log);
  log(`volumes: ${JSON.stringify(figures)}`);
  const section = renderVolumesSection(figures, { command: 'BENCH_ONLY=volumes npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), VOLUMES_HEADING, section));
  log('wrote the volumes section of docs/benchmarks.md');
}

async function mainNodeLifecycleOnly(): Promise<void> {
  const settings = nodeLifecycleSettingsFromEnv();
  const figures = await measureNodeLifecycle(settings, log);
  log(`nodelifecycle: ${JSON.stringify(figures)}`);
  const scaled = settings.nodes !== 1_000 || settings.pods !== 30_000 ? ` BENCH_NODELIFECYCLE_NODES=${settings.nodes} BENCH_NODELIFECYCLE_PODS=${settings.pods}` : '';
  const section = renderNodeLifecycleSection(figures, { command: `BENCH_ONLY=nodelifecycle${scaled} npm run bench`, date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), NODELIFECYCLE_HEADING, section));
  log('wrote the node-failure section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

async function mainSchedulerOnly(): Promise<void> {
  const results: SchedulerBenchResult[] = [];
  const basic = { variant: 'basic' as const, nodes: 5_000, backgroundPods: 1_000, measuredPods: 10_000, createConcurrency: 64 };
  {
    log('scheduler, in process: SchedulingBasic, 5,000 nodes');
    const local = await startInProcessServer(work);
    const conn = connectInProcess(local.server);
    try {
      results.push(await measureScheduling(basic, conn.client, conn.client, 'in-process', 'sched-basic'));
      log('scheduler, in process: latency below saturation (one create every 10 ms), 5,000 nodes');
      for (const p of (await conn.client.list(resources.pods)).items) {
        await conn.client.delete(resources.pods, p.metadata.namespace!, p.metadata.name!, { gracePeriodSeconds: 0 });
      }
      results.push(await measureScheduling({ ...basic, backgroundPods: 0, measuredPods: 1_000, createIntervalMs: 10 }, conn.client, conn.client, 'in-process', 'sched-latency'));
      for (const variant of ['anti-affinity', 'topology-spread'] as const) {
        log(`scheduler, in process: ${variant}, 1,000 nodes`);
        // A fresh cluster per case: the nodes and pods of the previous case would take part.
        for (const n of (await conn.client.list(resources.nodes)).items) await conn.client.delete(resources.nodes, '', n.metadata.name!);
        for (const p of (await conn.client.list(resources.pods)).items) {
          await conn.client.delete(resources.pods, p.metadata.namespace!, p.metadata.name!, { gracePeriodSeconds: 0 });
        }
        results.push(await measureScheduling({ variant, nodes: 1_000, backgroundPods: 500, measuredPods: 3_000, createConcurrency: 64 }, conn.client, conn.client, 'in-process', `sched-${variant}`));
      }
    } finally {
      await conn.close();
      await local.stop();
    }
  }
  {
    log('scheduler, over HTTPS: SchedulingBasic, 5,000 nodes');
    const api = await startApiServer({ dataDir, certDir });
    const cfg = writeSvcconfigFor(api, certDir, work);
    const load = connect({ svcconfig: cfg, qps: 0 });
    const sched = connect({ svcconfig: cfg, qps: 0, userAgent: 'scheduler' });
    try {
      results.push(await measureScheduling(basic, load.client, sched.client, 'HTTPS', 'sched-basic'));
    } finally {
      await sched.close();
      await load.close();
      await api.stop();
    }
  }
  for (const r of results) log(`${r.variant} ${r.transport} ${r.nodes} nodes: ${r.podsPerSecond} pods/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, RSS +${r.schedulerRssMiB} MiB`);
  const section = renderSchedulerSection(results, { command: 'BENCH_ONLY=scheduler npm run bench', date: startedAt, loadAtStart, notes: SCHEDULER_NOTES });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), SCHEDULER_HEADING, section));
  log('wrote the scheduler section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=services`: the Services part alone against its own fresh apiserver, spliced into docs/benchmarks.md. */
async function mainServicesOnly(): Promise<void> {
  const figures = await measureServices(parent, { concurrency: CONCURRENCY, warmup: 1_000, perRound: 2_000, rounds: 10, range: '10.96.0.0/16' }, log);
  log(`services: allocated at ${(figures.ratio * 100).toFixed(1)}% of the headless baseline; ${figures.allocatedTotal} allocated and released, ${figures.repair.reduce((n, r) => n + r.leaked, 0)} leaked, bitmap holds ${figures.ipsHeldAfter}`);
  const section = renderServicesSection(figures, { command: 'BENCH_ONLY=services npm run bench', date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), SERVICES_HEADING, section));
  log('wrote the Services section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=auth`: the authentication and authorization part alone against two fresh apiservers, spliced into docs/benchmarks.md. */
async function mainAuthOnly(): Promise<void> {
  // BENCH_AUTH_ROUNDS / _CREATES / _GET_MS shorten the run on a machine too loaded for the full one (the report says what ran).
  const num = (name: string, dflt: number) => Number(process.env[name] ?? dflt) || dflt;
  const figures = await measureAuth(
    parent,
    { concurrency: CONCURRENCY, rounds: num('BENCH_AUTH_ROUNDS', 5), createsPerRound: num('BENCH_AUTH_CREATES', 1_500), getMs: num('BENCH_AUTH_GET_MS', 3_000), otherBindings: 400, watchers: 50, watchWrites: 300 },
    log,
  );
  const r = authRatios(figures);
  for (const [m, x] of Object.entries(r)) log(`auth: ${m} keeps ${(x.creates * 100).toFixed(1)}% of creates, ${(x.gets * 100).toFixed(1)}% of gets (paired medians)`);
  log(`auth: watch p99 open ${figures.watch.open.p99Ms.toFixed(2)} ms, secured ${figures.watch.secured.p99Ms.toFixed(2)} ms`);
  const overrides = ['BENCH_AUTH_ROUNDS', 'BENCH_AUTH_CREATES', 'BENCH_AUTH_GET_MS'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `).join('');
  const section = renderAuthSection(figures, { command: `${overrides}BENCH_ONLY=auth npm run bench`, date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), AUTH_HEADING, section));
  log('wrote the authentication section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

/** `--only=audit`: admission and audit cost against two fresh apiservers, spliced into docs/benchmarks.md. */
async function mainAuditOnly(): Promise<void> {
  // BENCH_AUDIT_ROUNDS / _CREATES shorten the run on a loaded machine (the report says what ran).
  const num = (name: string, dflt: number) => Number(process.env[name] ?? dflt) || dflt;
  const figures = await measureAudit(parent, { concurrency: CONCURRENCY, rounds: num('BENCH_AUDIT_ROUNDS', 5), createsPerRound: num('BENCH_AUDIT_CREATES', 2_000) }, log);
  log(`audit: the audited server keeps ${(auditKept(figures) * 100).toFixed(1)}% of creates (paired median)`);
  const overrides = ['BENCH_AUDIT_ROUNDS', 'BENCH_AUDIT_CREATES'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `).join('');
  const section = renderAuditSection(figures, { command: `${overrides}BENCH_ONLY=audit npm run bench`, date: startedAt, loadAtStart });
  const file = join(ROOT, 'docs', 'benchmarks.md');
  writeFileSync(file, spliceSection(readFileSync(file, 'utf8'), AUDIT_HEADING, section));
  log('wrote the admission and audit section of docs/benchmarks.md');
  rmSync(work, { recursive: true, force: true });
}

async function main(): Promise<void> {
  if (loadAtStart > 0.5) log(`warning: load average ${loadAtStart.toFixed(2)}: other work is running, figures will be low and noisy`);
  log(`apiserver: data ${dataDir}${profileDir ? `, CPU profile to ${profileDir}` : ''}`);
  const api = await startApiServer({ dataDir, certDir, profileDir });
  let figures: Partial<BenchFigures>;
  try {
    const pool = api.pool(CONCURRENCY);
    const rssAtStartBytes = api.rssBytes();
    const namespaces = ['bench-warmup', 'bench-watch', 'bench-memory', 'bench-apply', 'bench-protobuf'];
    for (let r = 0; r < settings.createRounds; r++) namespaces.push(createNamespaceName(r));
    for (const ns of namespaces) await createNamespace(pool, ns);

    log('warm-up');
    await measureCreates(pool, { namespace: 'bench-warmup', prefix: 'cm', count: settings.warmupCreates, concurrency: CONCURRENCY });
    await measureGets(pool, { namespace: 'bench-warmup', prefix: 'cm', count: settings.warmupCreates, concurrency: CONCURRENCY, durationMs: settings.warmupGetMs });

    // 5,000 creates last about a second, so one round is at the mercy of one GC pause or a noisy
    // neighbour: run a few rounds into fresh namespaces and report the median round.
    const createRounds: LoadResult[] = [];
    for (let r = 0; r < settings.createRounds; r++) {
      const round = await measureCreates(pool, { namespace: createNamespaceName(r), prefix: 'cm', count: settings.createCount, concurrency: CONCURRENCY });
      createRounds.push(round);
      log(`creates, round ${r + 1}: ${rate(round)}`);
    }
    const creates = [...createRounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(createRounds.length / 2)]!;
    const gets = await measureGets(pool, { namespace: 'bench', prefix: 'cm', count: settings.createCount, concurrency: CONCURRENCY, durationMs: settings.getDurationMs });
    log(`gets: ${rate(gets)}`);
    const lists = await measureLists(pool, {
      path: '/api/v1/namespaces/bench/configmaps',
      expectItems: settings.listItems,
      chunkSize: settings.listChunk,
      warmupRuns: 2,
      runs: settings.listRuns,
    });
    log(`lists: whole ${lists.wholeMs.toFixed(1)} ms (${lists.wholeBytes} bytes), ${lists.chunks} chunks ${lists.chunkedMs.toFixed(1)} ms`);

    const rv = (JSON.parse((await call(pool, 'GET', '/api/v1/namespaces/bench-watch/configmaps?limit=1')).text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const watch = await measureWatchFanout(
      watchOptions(pool, api, `/api/v1/namespaces/bench-watch/configmaps?watch=1&resourceVersion=${rv}`, '/api/v1/namespaces/bench-watch/configmaps', 'bench-watch'),
    );
    log(`watch: p50 ${watch.p50Ms.toFixed(2)} ms p99 ${watch.p99Ms.toFixed(2)} ms max ${watch.maxMs.toFixed(2)} ms`);

    const applies = await measureApplies(pool, { namespace: 'bench-apply', objects: settings.applyObjects, concurrency: CONCURRENCY, durationMs: settings.applyDurationMs });
    log(`server-side applies (two managers): ${rate(applies)}`);

    const protobuf = await measureProtobufPart(pool);

    const rssAfterSmallStepsBytes = api.rssBytes();
    let rss: RssResult | undefined;
    if (!quick) {
      const stored = settings.warmupCreates + settings.createRounds * settings.createCount + WATCH_WARMUP + settings.watchWrites;
      log(`memory: creating ${settings.rssCount - stored} ConfigMaps (up to ${settings.rssCount} stored)`);
      rss = await measureRss(api, pool, {
        namespace: 'bench-memory',
        prefix: 'cm',
        count: settings.rssCount - stored,
        concurrency: CONCURRENCY,
        settleMs: settings.rssSettleMs,
      });
      log(`memory: ${rate(rss.create)}; RSS ${mib(rss.rssBytes)} (peak ${mib(rss.peakRssBytes)})`);
    }
    figures = { creates, createRounds, gets, lists, watch, applies, protobuf, rss, rssAtStartBytes, rssAfterSmallStepsBytes };
  } catch (err) {
    console.error(api.output().slice(-4000));
    throw err;
  } finally {
    const code = await api.stop();
    log(`apiserver stopped (exit ${code})`);
  }

  log('ceiling: bare Node.js HTTPS server');
  const bare = await startBareServer(join(certDir, 'apiserver.crt'), join(certDir, 'apiserver.key'));
  try {
    const pool = bare.pool(CONCURRENCY);
    const ceiling = await measureCeiling(pool, { concurrency: CONCURRENCY, warmupMs: settings.ceilingWarmupMs, durationMs: settings.getDurationMs });
    log(`ceiling: GET ${rate(ceiling.get)}; POST ${rate(ceiling.post)}`);
    const l = figures.lists!;
    const ceilingLists = await measureSizedCeiling(pool, { wholeBytes: l.wholeBytes, chunks: l.chunks, chunkedBytes: l.chunkedBytes, warmupRuns: 2, runs: settings.listRuns });
    const ceilingWatch = await measureWatchFanout(watchOptions(pool, bare, '/watch', '/watch', 'bench'));
    log(`ceiling: list ${ceilingLists.wholeMs.toFixed(1)} ms, chunks ${ceilingLists.chunkedMs.toFixed(1)} ms; watch p50 ${ceilingWatch.p50Ms.toFixed(2)} ms p99 ${ceilingWatch.p99Ms.toFixed(2)} ms`);
    figures = { ...figures, ceiling, ceilingLists, ceilingWatch, bareRssBytes: bare.rssBytes() };
  } finally {
    await bare.stop();
  }
  figures = { ...figures, runtime: await measureRuntime(parent, log), storms: await measureStormsPart() };

  const report = renderReport({
    ...(figures as BenchFigures),
    startedAt,
    durationS: (Date.now() - startedAt.getTime()) / 1000,
    machine: machineInfo(loadAtStart),
    command: `${quick ? 'BENCH_QUICK=1 ' : ''}${profile ? 'BENCH_PROFILE=1 ' : ''}npm run bench`,
    quick,
    profileDir,
    settings,
  });

  if (profileDir) {
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    let summary = 'No .cpuprofile was written (did the apiserver exit gracefully?).';
    if (files[0]) summary = renderProfileSummary(summarizeCpuProfile(join(profileDir, files[0]), 25));
    writeFileSync(join(profileDir, 'benchmarks.md'), `${report}\n## CPU profile of the apiserver\n\n${summary}\n`);
    console.log(summary);
    log(`profiled run: report and profile in ${profileDir} (docs/benchmarks.md left as it was)`);
  } else {
    writeFileSync(join(ROOT, 'docs', 'benchmarks.md'), report);
    log('wrote docs/benchmarks.md');
  }
  rmSync(work, { recursive: true, force: true });
}

(only !== undefined ? PARTS_ALONE[only]!() : main()).catch((err: unknown) => {
  console.error(err);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
