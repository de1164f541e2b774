// The controller manager's flags against the spec's tables: every option there is a flag here with
// its default; the controller list is the spec's; --controllers follows the established rules and
// refuses unknown names and controllers not built yet; bad values name the flag.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUILTIN_CONTROLLERS, buildControllers, CONTROLLER_NAMES, selectControllers } from '../../controllers/registry.js';
import { createControllerManagerProgram, resolveControllerSettings } from '../../src/cli/controller-manager-options.js';
import { unhonouredFlags } from '../../src/cli/program.js';
import { longFlag, registeredFlags } from '../../src/cli/option-table.js';
import { ROOT } from '../helpers/apiserver.js';
import { createCertificateAuthority } from '../../src/cli/pki.js';

/** The controllers of the spec's list that need a cloud provider (refused by name, skipped under *). */
const CLOUD = ['cloud-node-lifecycle', 'route', 'service'];
const SPEC = readFileSync(join(ROOT, '..', 'shared', 'spec', 'control-plane-components.md'), 'utf8');

function section(title: string): string {
  const start = SPEC.indexOf(title);
  assert.ok(start >= 0, `the spec has ${title}`);
  const next = SPEC.indexOf('\n#', start + title.length);
  return SPEC.slice(start, next < 0 ? undefined : next);
}

/** `| --flag | ...` rows of a section: flag and its default column (the 3rd for typed tables, the 2nd otherwise). */
function rows(text: string, defaultColumn: number): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (/^--[a-z]/.test(cells[1] ?? '')) out.push([cells[1], cells[defaultColumn] ?? '']);
  }
  return out;
}

function parse(args: string[]) {
  const program = createControllerManagerProgram();
  program.exitOverride();
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  program.parse(args, { from: 'user' });
  return program;
}

test('every controller-manager option of the spec is a flag, with the spec default', () => {
  const program = parse([]);
  const flags = new Map(registeredFlags(program).map((s) => [longFlag(s), s]));
  const specRows = [...rows(section('### Controller-manager-specific options'), 3), ...rows(section('### Controller manager\n'), 3)];
  const periodRows = rows(section('| Period option |'), 2);
  assert.ok(specRows.length >= 40 && periodRows.length >= 24, `${specRows.length} + ${periodRows.length} rows read`);
  for (const [flag] of [...specRows, ...periodRows]) assert.ok(flags.has(flag), `${flag} is a flag`);
  const opts = program.opts();
  const value = (flag: string) => opts[program.options.find((o) => o.long === flag)!.attributeName()];
  // Each plain default of the spec, given as the value, parses to the flag's default.
  let compared = 0;
  for (const [flag, d] of [...specRows, ...periodRows]) {
    const plain = /^(\S+)( \((float|float32|also cloud controller manager)\))?$/.exec(d)?.[1];
    if (!plain || plain === 'none' || plain.startsWith('[')) continue;
    const given = parse([`${flag}=${plain}`]).opts()[program.options.find((o) => o.long === flag)!.attributeName()];
    assert.equal(value(flag), given, `${flag}: default ${JSON.stringify(value(flag))}, spec ${d}`);
    compared++;
  }
  assert.ok(compared >= 35, `${compared} defaults compared`);
  assert.equal(value('--controllers'), ['*']);
  assert.is(value('--concurrent-gc-syncs'), 20);
  assert.is(value('--concurrent_rc_syncs'), 5);
  assert.is(value('--terminated-pod-gc-threshold'), 12500);
  assert.is(value('--namespace-sync-period'), 300_000);
  assert.is(value('--horizontal-pod-autoscaler-tolerance'), 0.1);
  assert.is(value('--leader-elect-resource-name'), 'svc-controller-manager');
  assert.is(value('--svc-api-qps'), 20);
  assert.is(value('--svc-api-burst'), 30);
  assert.is(value('--secure-port'), 10257);
});

test("the controller list is the spec's, with bootstrapsigner and tokencleaner off by default", () => {
  const line = /Controllers \(all\): ([^\n]*?)\. Disabled by default: ([^\n]*)\./.exec(SPEC);
  assert.ok(line);
  assert.equal([...CONTROLLER_NAMES].sort(), line![1]!.split(',').map((s) => s.trim()).sort());
  assert.equal(BUILTIN_CONTROLLERS.filter((c) => !c.defaultOn).map((c) => c.name), line![2]!.split(',').map((s) => s.trim()));
});

test('--controllers: * is every built default controller; -name removes one; a name adds one; * reports the cloud ones', () => {
  const all = selectControllers(['*']);
  assert.ok(all.enabled.some((c) => c.name === 'replicaset'));
  assert.equal(all.needCloudProvider, CLOUD);
  assert.ok(all.disabled.includes('bootstrapsigner'));
  assert.not.ok(selectControllers(['*', '-replicaset']).enabled.some((c) => c.name === 'replicaset'));
  assert.equal(selectControllers(['replicaset']).enabled.map((c) => c.name), ['replicaset']);
  assert.equal(selectControllers([]).enabled, []);
});

test('--controllers refuses an unknown name and a cloud controller named explicitly, with the reason', () => {
  assert.throws(() => resolveControllerSettings(parse(['--controllers=replicaset,nope']).opts()), /--controllers: "nope" is not a known controller; the controllers are: attachdetach/);
  for (const name of CLOUD) {
    assert.throws(() => resolveControllerSettings(parse([`--controllers=*,${name}`]).opts()), new RegExp(`controller "${name}" needs a cloud provider \\(--cloud-provider=cloudy with --cloud-config\\)`));
    assert.throws(() => resolveControllerSettings(parse([`--controllers=*,${name}`, '--cloud-provider=external']).opts()), /the cloud-controller-manager runs it/);
    assert.ok(resolveControllerSettings(parse([`--controllers=*,-${name}`]).opts()), 'disabling a cloud one is fine');
  }
  // --help names what the cloud ones need; every controller of the spec's list is built.
  const help = createControllerManagerProgram().helpInformation().replace(/\s+/g, ' ');
  for (const name of CLOUD) assert.match(help, `${name} (needs --cloud-provider)`);
  assert.equal(BUILTIN_CONTROLLERS.filter((c) => !c.build).map((c) => c.name), []);
  assert.not.match(help, 'not built');
});

test('--cloud-provider=cloudy runs the cloud controllers (route only with --allocate-node-cidrs); an unknown provider or a missing file is refused by name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cm-cloud-'));
  const file = join(dir, 'cloud.json');
  const on = resolveControllerSettings(parse(['--cloud-provider=cloudy', `--cloud-config=${file}`]).opts());
  assert.equal(on.selection.needCloudProvider, []);
  for (const name of CLOUD) assert.ok(on.selection.enabled.some((c) => c.name === name), name);
  const { definitions, off } = buildControllers(on.selection.enabled, on.config);
  assert.ok(definitions.some((d) => d.name === 'service') && definitions.some((d) => d.name === 'cloud-node-lifecycle'));
  assert.match(off.find((o) => o.name === 'route')?.reason ?? '', /--allocate-node-cidrs=true and --configure-cloud-routes=true/);
  assert.throws(() => resolveControllerSettings(parse(['--cloud-provider=aws']).opts()), /--cloud-provider: unknown cloud provider "aws"; this version has: cloudy/);
  assert.throws(() => resolveControllerSettings(parse(['--cloud-provider=cloudy']).opts()), /--cloud-provider=cloudy needs --cloud-config/);
  assert.throws(() => resolveControllerSettings(parse(['--cloud-config=x.json']).opts()), /--cloud-config is set but --cloud-provider is empty/);
  writeFileSync(file, '{"zones": 3}');
  assert.throws(() => resolveControllerSettings(parse(['--cloud-provider=cloudy', `--cloud-config=${file}`]).opts()), /"zones" must be a non-empty list of names/);
  rmSync(dir, { recursive: true, force: true });
});

test('bad values name the flag', () => {
  const bad = (args: string[], re: RegExp) => assert.throws(() => resolveControllerSettings(parse(args).opts()), re);
  bad(['--concurrent-replicaset-syncs=0'], /--concurrent-replicaset-syncs: must be at least 1/);
  bad(['--attach-detach-reconcile-sync-period=999ms'], /--attach-detach-reconcile-sync-period: duration time must be greater than one second/);
  bad(['--unhealthy-zone-threshold=1.5'], /--unhealthy-zone-threshold/);
  bad(['--cluster-cidr=10.0.0.0/8'], /need --allocate-node-cidrs/);
  bad(['--node-cidr-mask-size-ipv4=40'], /--node-cidr-mask-size-ipv4/);
  assert.throws(() => parse(['--controller-start-interval=soon']), /controller-start-interval/);
});

test('attachdetach: its sync period (1 s is the least) and the sync switch reach its settings; --flex-volume-plugin-dir is refused when set', () => {
  const d = resolveControllerSettings(parse([]).opts());
  assert.is(d.config.attachDetachReconcileSyncPeriodMs, 60_000);
  assert.is(d.config.disableAttachDetachReconcileSync, false);
  const s = resolveControllerSettings(parse(['--attach-detach-reconcile-sync-period=1s', '--disable-attach-detach-reconcile-sync']).opts());
  assert.is(s.config.attachDetachReconcileSyncPeriodMs, 1_000);
  assert.is(s.config.disableAttachDetachReconcileSync, true);
  assert.equal(unhonouredFlags(parse(['--attach-detach-reconcile-sync-period=5s', '--disable-attach-detach-reconcile-sync'])), []);
  assert.equal(unhonouredFlags(parse(['--flex-volume-plugin-dir=/x'])), ['--flex-volume-plugin-dir']);
});

test('settings reach the controllers: worker counts and the start interval', () => {
  const s = resolveControllerSettings(parse(['--concurrent-replicaset-syncs=9', '--controller-start-interval=2s', '--terminated-pod-gc-threshold=0']).opts());
  assert.is(s.config.concurrentReplicaSetSyncs, 9);
  assert.is(s.config.terminatedPodGcThreshold, 0);
  assert.is(s.startIntervalMs, 2000);
});

test('--cluster-signing-*-file: at the defaults with no files, no CA (csrsigning off); given, read and checked; a key not the certificate\'s own is refused', async () => {
  assert.is(resolveControllerSettings(parse([]).opts()).config.clusterSigning, undefined);
  assert.throws(() => resolveControllerSettings(parse(['--cluster-signing-cert-file=/nonexistent/ca.pem']).opts()), /--cluster-signing-cert-file: cannot read \/nonexistent\/ca.pem/);
  const dir = mkdtempSync(join(tmpdir(), 'svc-signing-'));
  const a = await createCertificateAuthority('a');
  const b = await createCertificateAuthority('b');
  writeFileSync(join(dir, 'a.pem'), a.certPem);
  writeFileSync(join(dir, 'a.key'), a.keyPem);
  writeFileSync(join(dir, 'b.key'), b.keyPem);
  const ok = resolveControllerSettings(parse([`--cluster-signing-cert-file=${join(dir, 'a.pem')}`, `--cluster-signing-key-file=${join(dir, 'a.key')}`, '--experimental-cluster-signing-duration=2h']).opts());
  assert.equal(ok.config.clusterSigning, { certPem: a.certPem, keyPem: a.keyPem });
  assert.is(ok.config.clusterSigningDurationMs, 7_200_000);
  assert.throws(() => resolveControllerSettings(parse([`--cluster-signing-cert-file=${join(dir, 'a.pem')}`, `--cluster-signing-key-file=${join(dir, 'b.key')}`]).opts()), /the private key is not the certificate's/);
  rmSync(dir, { recursive: true, force: true });
});

test('docs/controller-manager.md lists every controller, built or not, on with * or not, as the registry says', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'controller-manager.md'), 'utf8');
  for (const c of BUILTIN_CONTROLLERS) {
    const row = doc.split('\n').find((l) => l.startsWith(`| ${c.name} |`));
    assert.ok(row, `${c.name} has a row`);
    const cells = row!.split('|').map((x) => x.trim());
    assert.is(cells[2], c.needsCloudProvider ? 'with --cloud-provider' : c.build ? 'yes' : 'not yet', `${c.name} built`);
    assert.is(cells[3], c.defaultOn ? 'yes' : 'no', `${c.name} on with *`);
  }
});

test.run();
