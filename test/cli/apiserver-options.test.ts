import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import {
  adminConfigDir,
  buildApiServerConfig,
  createApiServerProgram,
  parseRuntimeConfig,
  parseServersOverrides,
  parseWatchCacheSizes,
  resolveApiServerOptions,
} from '../../src/cli/apiserver-options.js';
import { explicitlySetFlags } from '../../src/cli/option-table.js';
import { refuseUnhonouredFlags, unhonouredFlags } from '../../src/cli/program.js';

function parse(args: string[]) {
  const cmd = createApiServerProgram();
  const err: string[] = [];
  cmd.configureOutput({ writeOut: () => {}, writeErr: (s) => err.push(s) });
  try {
    cmd.parse(args, { from: 'user' });
  } catch (e) {
    throw new Error(err.join('') || String(e));
  }
  return { cmd, options: resolveApiServerOptions(cmd.opts(), explicitlySetFlags(cmd)) };
}

test('defaults follow the spec tables', () => {
  const { options: o } = parse([]);
  assert.is(o.common.securePort, 6443);
  assert.is(o.common.bindAddress, '0.0.0.0');
  assert.is(o.dataDir, './data');
  assert.is(o.dataDirFsync, true, 'acknowledged = on disk by default');
  assert.equal(o.storage.servers, []);
  assert.is(o.storage.prefix, '/registry');
  assert.is(o.storage.compactionIntervalMs, 300_000);
  assert.is(o.storage.countMetricPollPeriodMs, 60_000);
  assert.is(o.storage.mediaType, 'application/vnd.svc.protobuf');
  assert.equal(o.watchCache, { enabled: true, defaultSize: 100, sizes: {} });
  assert.is(o.maxRequestsInflight, 400);
  assert.is(o.maxMutatingRequestsInflight, 200);
  assert.is(o.requestTimeoutMs, 60_000);
  assert.is(o.minRequestTimeoutSeconds, 1800);
  assert.is(o.deleteCollectionWorkers, 1);
  assert.equal(o.serviceNodePortRange, { base: 30000, size: 2768 });
  assert.equal(o.authorization.modes, ['AlwaysAllow']);
  assert.equal(o.authentication.anonymous, true);
  assert.ok(o.admissionPlugins.includes('NamespaceLifecycle'));
  assert.is(o.flags.string('--audit-log-mode'), 'blocking');
  assert.is(o.flags.string('--audit-webhook-mode'), 'batch');
  assert.is(o.flags.number('--audit-webhook-batch-max-wait'), 30_000);
  assert.is(o.flags.number('--audit-log-batch-max-size'), 1);
  assert.is(o.flags.number('--event-ttl'), 3_600_000);
  assert.equal(o.flags.list('--oidc-signing-algs'), ['RS256']);
});

test('--data-dir-fsync=false relaxes the embedded store to acknowledge before the fsync', () => {
  assert.is(parse(['--data-dir-fsync=false']).options.dataDirFsync, false);
  assert.is(parse(['--data-dir-fsync']).options.dataDirFsync, true);
});

test('--secure-port=0 is rejected with a clear message', () => {
  assert.throws(() => parse(['--secure-port=0']), /--secure-port.*always serves HTTPS/);
});

test('--storage-backend accepts only kvstore3', () => {
  assert.is(parse(['--storage-backend=kvstore3']).options.storage.backend, 'kvstore3');
  assert.is(parse(['--storage-backend=']).options.storage.backend, 'kvstore3');
  assert.throws(() => parse(['--storage-backend=etcd2']), /--storage-backend.*kvstore3/);
});

test('--watch-cache-sizes parses resource[.group]#size', () => {
  assert.equal(parseWatchCacheSizes('--watch-cache-sizes', ['pods#1000', 'deployments.apps#50']), { pods: 1000, 'deployments.apps': 50 });
  const { options } = parse(['--watch-cache-sizes=pods#10', '--watch-cache-sizes', 'events#0,replicasets.apps#5']);
  assert.equal(options.watchCache.sizes, { pods: 10, events: 0, 'replicasets.apps': 5 });
  assert.throws(() => parse(['--watch-cache-sizes=pods=10']), /--watch-cache-sizes.*resource\[\.group\]#size/);
  assert.throws(() => parse(['--watch-cache-sizes=pods#-1']), /--watch-cache-sizes/);
});

test('--runtime-config parses keys with optional true/false', () => {
  assert.equal(parseRuntimeConfig('--runtime-config', 'api/all=false,apps/v1=true,batch/v2alpha1'), {
    'api/all': 'false',
    'apps/v1': 'true',
    'batch/v2alpha1': 'true',
  });
  assert.equal(parse(['--runtime-config=api/alpha=true', '--runtime-config=v1=false']).options.runtimeConfig, { 'api/alpha': 'true', v1: 'false' });
  assert.throws(() => parse(['--runtime-config=apps/v1=maybe']), /--runtime-config.*apps\/v1 must be true or false/);
  assert.throws(() => parse(['--runtime-config=not a key']), /--runtime-config/);
});

test('--kvstore-servers-overrides parses group/resource#url;url', () => {
  assert.equal(parseServersOverrides('--kvstore-servers-overrides', ['/events#https://127.0.0.1:4002;https://127.0.0.1:4003', 'apps/deployments#http://h:1']), {
    '/events': ['https://127.0.0.1:4002', 'https://127.0.0.1:4003'],
    'apps/deployments': ['http://h:1'],
  });
  assert.throws(() => parse(['--kvstore-servers-overrides=events#https://x:1']), /--kvstore-servers-overrides/);
  assert.throws(() => parse(['--kvstore-servers-overrides=/events#notaurl']), /--kvstore-servers-overrides/);
  assert.throws(() => parse(['--kvstore-servers=127.0.0.1:2379']), /--kvstore-servers.*scheme:\/\/ip:port/);
});

test('cross-flag rules name the flags involved', () => {
  assert.throws(() => parse(['--enable-admission-plugins=NoSuchPlugin']), /NoSuchPlugin.*--enable-admission-plugins.*unknown admission plugin/);
  assert.throws(() => parse(['--enable-admission-plugins=AlwaysPullImages', '--disable-admission-plugins=AlwaysPullImages']), /AlwaysPullImages/);
  assert.throws(() => parse(['--authorization-mode=RBAC,Magic']), /Magic.*--authorization-mode/);
  assert.throws(() => parse(['--authorization-mode=ABAC']), /--authorization-policy-file/);
  // Node is built; a plugin named in --enable-admission-plugins that is not built is refused by name
  // (a security option never fails open), while the default list's unbuilt plugins simply do not run.
  assert.equal(parse(['--authorization-mode=Node,AlwaysAllow']).options.authorization.modes, ['Node', 'AlwaysAllow']);
  assert.ok(parse(['--enable-admission-plugins=NodeRestriction']).options.admissionPlugins.includes('NodeRestriction'));
  assert.not.ok(parse([]).options.admissionPlugins.includes('NodeRestriction'), 'NodeRestriction is not in the default list');
  assert.not.ok(parse(['--disable-admission-plugins=NamespaceLifecycle']).options.admissionPlugins.includes('NamespaceLifecycle'));
  assert.ok(parse(['--enable-admission-plugins=NodeRestriction,PersistentVolumeLabel']).options.admissionPlugins.includes('PersistentVolumeLabel'));
  assert.equal(parse(['--cloud-provider=cloudy', '--cloud-config=/c.json']).options.cloud, { provider: 'cloudy', cloudConfig: '/c.json' });
  // PodPreset reads an alpha API: refused with the --runtime-config that turns it on named.
  assert.throws(() => parse(['--enable-admission-plugins=PodPreset']), /PodPreset needs the settings.k8s.io\/v1alpha1 API .*--runtime-config=settings.k8s.io\/v1alpha1=true/);
  assert.ok(parse(['--enable-admission-plugins=PodPreset', '--runtime-config=settings.k8s.io/v1alpha1=true']).options.admissionPlugins.includes('PodPreset'));
  assert.equal(parse(['--authorization-mode=RBAC,AlwaysDeny']).options.authorization.modes, ['RBAC', 'AlwaysDeny'], 'RBAC is built');
  assert.throws(() => parse(['--authorization-mode=']), /at least one mode/);
  assert.throws(() => parse(['--oidc-issuer-url=https://issuer']), /--oidc-client-id/);
  // A proxy's allowed names without its CA would trust no one: refused rather than ignored.
  assert.throws(() => parse(['--requestheader-allowed-names=front-proxy']), /--requestheader-allowed-names needs --requestheader-client-ca-file/);
  assert.equal(parse(['--requestheader-client-ca-file=/ca.crt']).options.authenticationFiles.requestHeader, {
    clientCaFile: '/ca.crt', allowedNames: [], usernameHeaders: ['x-remote-user'], groupHeaders: ['x-remote-group'], extraHeaderPrefixes: ['x-remote-extra-'],
  });
  assert.throws(() => parse(['--goaway-chance=0.5']), /--goaway-chance/);
  assert.throws(() => parse(['--audit-log-format=xml']), /--audit-log-format.*json, legacy/);
  assert.throws(() => parse(['--audit-dynamic-configuration']), /DynamicAuditing/);
  assert.throws(() => parse(['--service-account-jwks-uri=https://x/jwks']), /ServiceAccountIssuerDiscovery/);
  assert.throws(() => parse(['--cors-allowed-origins=(']), /--cors-allowed-origins/);
  // RE2 syntax (what the server matches origins with): a backreference is refused with RE2's reason.
  assert.throws(() => parse(['--cors-allowed-origins=^https://(a)\\1$']), /--cors-allowed-origins.*invalid escape sequence/);
  assert.throws(() => parse(['--svc-service-node-port=80']), /--svc-service-node-port/);
  assert.ok(parse(['--audit-dynamic-configuration', '--feature-gates=DynamicAuditing=true']));
  const { options } = parse(['--enable-priority-and-fairness=true']);
  assert.match(options.warnings.join('\n'), /APIPriorityAndFairness/);
  assert.is(options.priorityAndFairness, false, 'without its gate the flag does nothing');
  // API Priority and Fairness: on with its gate (the flag defaults to true), off by the flag.
  assert.is(parse(['--feature-gates=APIPriorityAndFairness=true']).options.priorityAndFairness, true);
  assert.is(parse(['--feature-gates=APIPriorityAndFairness=true', '--enable-priority-and-fairness=false']).options.priorityAndFairness, false);
  assert.throws(
    () => parse(['--feature-gates=APIPriorityAndFairness=true', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0']),
    /MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive/,
  );
});

test('--svclet-* (how pods/log reaches node agents) are resolved and checked', () => {
  const { options } = parse(['--svclet-preferred-address-types=InternalIP,Hostname', '--svclet-timeout=2s']);
  assert.equal(options.svclet, { https: true, preferredAddressTypes: ['InternalIP', 'Hostname'], timeoutMs: 2_000 });
  assert.equal(parse([]).options.svclet.preferredAddressTypes, ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']);
  assert.throws(() => parse(['--svclet-preferred-address-types=InternalIP,Wherever']), /"Wherever" for --svclet-preferred-address-types: expected some of Hostname, InternalIP/);
  assert.throws(() => parse(['--svclet-client-certificate=/tmp/c.pem']), /--svclet-client-certificate and --svclet-client-key must be given together/);
  assert.throws(() => parse(['--svclet-https=false', '--svclet-certificate-authority=/tmp/ca.pem']), /need --svclet-https=true/);
});

test('Service flags: --service-cluster-ip-range defaults to 10.0.0.0/24; dual-stack only behind IPv6DualStack; the established range checks', async () => {
  const { options: o } = parse([]);
  assert.equal(o.serviceClusterIPRanges, ['10.0.0.0/24']);
  assert.equal(o.serviceNodePortRange, { base: 30000, size: 2768 });
  assert.is(o.endpointReconcilerType, 'lease');
  assert.is(o.apiserverCount, 1);
  assert.equal(parse(['--service-cluster-ip-range=10.96.0.9/16']).options.serviceClusterIPRanges, ['10.96.0.0/16']);
  assert.throws(() => parse(['--service-cluster-ip-range=10.0.0.0/24,fd00::/112']), /two ranges \(dual-stack\), which needs the IPv6DualStack feature gate: add --feature-gates=IPv6DualStack=true/);
  assert.equal(parse(['--service-cluster-ip-range=10.0.0.0/24,fd00::/112', '--feature-gates=IPv6DualStack=true']).options.serviceClusterIPRanges, ['10.0.0.0/24', 'fd00::/112']);
  assert.throws(() => parse(['--service-cluster-ip-range=10.0.0.0/24,10.1.0.0/24', '--feature-gates=IPv6DualStack=true']), /must be of different IP family/);
  assert.throws(() => parse(['--service-cluster-ip-range=10.0.0.0/24,fd00::/112,10.1.0.0/24', '--feature-gates=IPv6DualStack=true']), /must not contain more than two entries/);
  assert.throws(() => parse(['--service-cluster-ip-range=10.0.0.0/8']), /specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12/);
  assert.throws(() => parse(['--service-cluster-ip-range=10.0.0.0/31']), /fewer than 2 addresses/);
  assert.throws(() => parse(['--endpoint-reconciler-type=other']), /--endpoint-reconciler-type/);
  assert.throws(() => parse(['--apiserver-count=0']), /--apiserver-count/);
  // Honoured now: not refused.
  const dir = mkdtempSync(join(tmpdir(), 'svc-cfg-'));
  const { cmd } = parse([`--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, '--service-cluster-ip-range=10.0.0.0/16', '--service-node-port-range=31000-31999', '--endpoint-reconciler-type=none', '--apiserver-count=2', '--advertise-address=10.1.2.3']);
  assert.equal(unhonouredFlags(cmd), []);
  const config = await buildApiServerConfig(resolveApiServerOptions(cmd.opts(), explicitlySetFlags(cmd)), pino({ level: 'silent' }));
  assert.equal(config.services.nodePortRange, { base: 31000, size: 1000 });
  assert.is(config.services.advertiseAddress, '10.1.2.3');
  assert.is(config.services.endpointReconcilerType, 'none');
});

test('OIDC, webhook and ABAC flags: established user-name prefix defaulting, orphan flags and unknown algorithms refused', () => {
  const oidc = (args: string[]) => parse(['--oidc-issuer-url=https://issuer.example', '--oidc-client-id=c', ...args]).options.authentication.oidc!;
  assert.is(oidc([]).usernamePrefix, 'https://issuer.example#', 'claims other than email: the issuer URL and #');
  assert.is(oidc(['--oidc-username-claim=email']).usernamePrefix, '', 'email: no prefix');
  assert.is(oidc(['--oidc-username-prefix=-']).usernamePrefix, '', '- disables');
  assert.is(oidc(['--oidc-username-prefix=corp:']).usernamePrefix, 'corp:');
  assert.equal(oidc(['--oidc-required-claim=team=core', '--oidc-signing-algs=RS256,ES256']).requiredClaims, { team: 'core' });
  assert.equal(oidc(['--oidc-signing-algs=RS256,ES256']).signingAlgs, ['RS256', 'ES256']);
  assert.throws(() => oidc(['--oidc-signing-algs=HS256']), /--oidc-signing-algs.*unsupported signing alg/);
  assert.throws(() => parse(['--oidc-issuer-url=http://issuer.example', '--oidc-client-id=c']), /must be an https:\/\/ URL/);
  assert.throws(() => parse(['--oidc-client-id=c', '--oidc-groups-claim=groups']), /--oidc-client-id, --oidc-groups-claim have no effect without --oidc-issuer-url/);
  assert.throws(() => parse(['--authorization-webhook-config-file=/x']), /only used with --authorization-mode=Webhook/);
  assert.throws(() => parse(['--authorization-policy-file=/x']), /only used with --authorization-mode=ABAC/);
  const { options } = parse(['--authorization-mode=Webhook', '--authorization-webhook-config-file=/w', '--authorization-webhook-version=v1', '--authentication-token-webhook-config-file=/t', '--authentication-token-webhook-cache-ttl=5s']);
  assert.equal(options.externalAuth, {
    tokenWebhook: { configFile: '/t', version: 'v1beta1', cacheTtlMs: 5000 },
    authorizationWebhook: { configFile: '/w', version: 'v1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 },
  });
});

test('a flag that is not built yet is refused at start, naming it, unless given its default', () => {
  const { cmd } = parse(['--encryption-provider-config=/etc/enc.yaml', '--audit-dynamic-configuration', '--feature-gates=DynamicAuditing=true', '--audit-log-path=/tmp/audit.log', '--max-requests-inflight=10']);
  assert.equal(unhonouredFlags(cmd).sort(), ['--encryption-provider-config']);
  assert.throws(() => refuseUnhonouredFlags(cmd), /^--encryption-provider-config is not built yet, so it would have no effect; remove it/);
  // The default changes nothing: accepted.
  const { cmd: defaults } = parse(['--audit-log-format=json', '--authorization-mode=AlwaysAllow']);
  assert.equal(unhonouredFlags(defaults), []);
  refuseUnhonouredFlags(defaults);
});

test('the audit flags: the established checks, the policy read at start', async () => {
  const fails: [string[], RegExp][] = [
    [['--audit-log-path=/tmp/a.log', '--audit-log-maxage=-1'], /--audit-log-maxage -1 can't be a negative number/],
    [['--audit-log-path=/tmp/a.log', '--audit-log-mode=batch', '--audit-log-batch-buffer-size=0'], /invalid audit batch log buffer size 0, must be a positive number/],
    [['--audit-log-path=/tmp/a.log', '--audit-log-mode=batch', '--audit-log-batch-throttle-enable'], /invalid audit batch log throttle QPS 0, must be a positive number/],
    [['--audit-webhook-config-file=/tmp/h', '--audit-webhook-truncate-enabled', '--audit-webhook-truncate-max-event-size=20000000'], /invalid audit truncate webhook max event size 20000000, must be not greater than batch size 10485760/],
    [['--audit-log-path=/tmp/a.log', '--audit-log-version=audit.k8s.io/v2'], /invalid audit log version audit.k8s.io\/v2/],
    [['--audit-log-mode=sometimes'], /--audit-log-mode/],
  ];
  for (const [args, re] of fails) assert.throws(() => parse(args), re, args.join(' '));
  const dir = mkdtempSync(join(tmpdir(), 'svc-audit-cfg-'));
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Bogus}]\n');
  const base = [`--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`, `--audit-policy-file=${policy}`];
  const { options: bad } = parse([...base, `--audit-log-path=${join(dir, 'audit.log')}`]);
  const refused = await buildApiServerConfig(bad, pino({ level: 'silent' })).then(() => undefined, (e: Error) => e);
  assert.match(String(refused?.message), /--audit-policy-file: .*rules\[0\]\.level: Unsupported value: "Bogus"/);
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n');
  const { options: ok } = parse([...base, `--audit-log-path=${join(dir, 'audit.log')}`, '--audit-log-format=legacy', '--audit-log-maxbackup=3']);
  const cfg = await buildApiServerConfig(ok, pino({ level: 'silent' }));
  assert.is(cfg.audit?.policy.rules[0]?.level, 'Metadata');
  assert.equal({ ...cfg.audit?.log, batch: undefined, truncate: undefined }, {
    path: join(dir, 'audit.log'), format: 'legacy', maxAgeDays: 0, maxBackups: 3, maxSizeMB: 0, mode: 'blocking', apiVersion: 'audit.svc.io/v1', batch: undefined, truncate: undefined,
  });
  // A policy without a backend records nothing (and says so).
  const { options: alone } = parse(base);
  assert.ok(alone.warnings.some((w) => /no audit backend/.test(w)));
  assert.is((await buildApiServerConfig(alone, pino({ level: 'silent' }))).audit, undefined);
});

test('buildApiServerConfig fills the contract', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cfg-'));
  const { options } = parse([
    `--cert-dir=${join(dir, 'certs')}`,
    `--data-dir=${join(dir, 'data')}`,
    '--secure-port=7443',
    '--bind-address=127.0.0.1',
    '--request-timeout=30s',
    '--shutdown-delay-duration=2s',
    '--cors-allowed-origins=https://a\\.example,//localhost',
    '--kvstore-servers=https://127.0.0.1:2379',
    '--watch-cache=false',
    // BoundServiceAccountTokenVolume (alpha) would need the service-account signing flags.
    '--feature-gates=AllAlpha=true,BoundServiceAccountTokenVolume=false',
    '--tls-min-version=VersionTLS12',
  ]);
  const logger = pino({ level: 'silent' });
  const c = await buildApiServerConfig(options, logger);
  assert.is(c.securePort, 7443);
  assert.is(c.bindAddress, '127.0.0.1');
  assert.match(c.tls.cert, /BEGIN CERTIFICATE/);
  assert.is(c.tls.minVersion, 'TLSv1.2');
  assert.equal(c.storage.servers, ['https://127.0.0.1:2379']);
  assert.is(c.storage.dataDir, join(dir, 'data'));
  assert.is(c.watchCache.enabled, false);
  assert.is(c.requestTimeoutMs, 30_000);
  assert.is(c.shutdownDelayMs, 2000);
  assert.equal(c.corsAllowedOrigins, ['https://a\\.example', '//localhost']);
  assert.is(c.featureGates['APIPriorityAndFairness'], true);
  assert.is(c.priorityAndFairness, true);
  assert.is(c.continueTokenTtlMs, 300_000);
  assert.equal(c.version, { major: '0', minor: '1', gitVersion: 'v0.1.0' });
  assert.is(c.profiling, true);
  assert.is(c.extraHandlers?.length, 1, 'profiling adds the /debug/pprof handler');
  assert.is(c.logger, logger);
  const off = await buildApiServerConfig(parse([`--cert-dir=${join(dir, 'certs')}`, '--profiling=false']).options, logger);
  assert.is(off.extraHandlers, undefined);
});

test('--service-account-* flags: issuers repeatable and the default audiences, bounds and key files checked by name', async () => {
  const sign = ['--service-account-signing-key-file=/k.pem', '--service-account-key-file=/k.pub'];
  const { options, cmd } = parse([...sign, '--service-account-issuer=https://a.example', '--service-account-issuer=https://b.example', '--service-account-lookup=false', '--enable-bootstrap-token-auth']);
  assert.equal(options.serviceAccounts.issuers, ['https://a.example', 'https://b.example']);
  assert.equal(options.authentication.apiAudiences, ['https://a.example', 'https://b.example'], '--api-audiences defaults to the issuers');
  assert.is(options.authentication.bootstrapTokens, true);
  assert.equal(unhonouredFlags(cmd), [], 'built: no longer refused');
  assert.equal(parse([...sign, '--service-account-issuer=https://a.example', '--api-audiences=x,y']).options.authentication.apiAudiences, ['x', 'y']);
  assert.throws(() => parse(['--service-account-max-token-expiration=30m']), /between 1 hour and 2\^32 seconds/);
  assert.is(parse(['--service-account-max-token-expiration=2h']).options.serviceAccounts.maxTokenExpirationSeconds, 7200);
  assert.throws(() => parse([...sign, '--service-account-issuer=https:// bad']), /contained a ':' but was not a valid URL/);
  assert.throws(() => parse(['--feature-gates=ServiceAccountIssuerDiscovery=true', '--service-account-jwks-uri=http://x/jwks']), /--service-account-jwks-uri: must be an https:\/\/ URL/);
  assert.throws(() => parse(['--service-account-signing-key-file=/k.pem']), /needs --service-account-issuer/);
  assert.throws(() => parse(['--service-account-signing-key-file=/k.pem', '--service-account-issuer=https://a.example']), /--service-account-key-file is required/);
  assert.throws(() => parse(['--service-account-signing-key-file=/k.pem', '--service-account-issuer=https://a.example', '--feature-gates=TokenRequest=false']), /TokenRequest feature gate/);
  // The established TokenRequest rules: the issuer is made of the three flags together, behind its gates.
  assert.throws(() => parse(['--service-account-issuer=https://a.example', '--feature-gates=TokenRequest=false']), /the TokenRequest feature is not enabled but/);
  assert.throws(() => parse(['--service-account-issuer=https://a.example']), /--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together/);
  assert.throws(() => parse(['--api-audiences=x']), /should be specified together/);
  assert.throws(() => parse(['--feature-gates=BoundServiceAccountTokenVolume=true']), /--service-account-signing-key-file and --service-account-issuer are required flags/);
  assert.throws(() => parse(['--feature-gates=BoundServiceAccountTokenVolume=true,TokenRequestProjection=false']), /depends on the TokenRequestProjection feature/);
  // Projected token sources are always accepted here: the gate cannot be turned off (nor by AllBeta=false).
  assert.throws(() => parse(['--feature-gates=TokenRequestProjection=false']), /TokenRequestProjection=false is not supported/);
  assert.throws(() => parse(['--feature-gates=AllBeta=false']), /TokenRequestProjection=false is not supported/);
  // Files: read at build time; one that holds no key is refused naming the flag and file.
  const dir = mkdtempSync(join(tmpdir(), 'svc-sa-'));
  writeFileSync(join(dir, 'empty.pem'), 'nothing here\n');
  const logger = pino({ level: 'silent' });
  const bad = parse([`--cert-dir=${join(dir, 'certs')}`, `--service-account-key-file=${join(dir, 'empty.pem')}`]).options;
  await buildApiServerConfig(bad, logger).then(
    () => assert.unreachable('a key file without a key'),
    (e: Error) => assert.match(e.message, /--service-account-key-file .*empty.pem: no PEM-encoded public key/),
  );
  const none = await buildApiServerConfig(parse([`--cert-dir=${join(dir, 'certs')}`]).options, logger);
  assert.is(none.authentication?.serviceAccounts, undefined, 'no keys: no service-account tokens');
});

test('the admin client configuration goes beside the self-signed certificate, or in --data-dir with the operator\'s own pair', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-admin-'));
  assert.is(await adminConfigDir(parse([`--cert-dir=${join(dir, 'certs')}`, `--data-dir=${join(dir, 'data')}`]).options), join(dir, 'certs'));
  const own = parse([`--tls-cert-file=${join(dir, 'pki', 'tls.crt')}`, `--tls-private-key-file=${join(dir, 'pki', 'tls.key')}`, `--data-dir=${join(dir, 'data')}`]).options;
  assert.is(await adminConfigDir(own), join(dir, 'data'));
});

test.run();
