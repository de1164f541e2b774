/**
 * The aggregation layer's rules, without a server: APIService validation and columns, the local
 * APIServices and their priorities, service routing (cluster IP and endpoints), the Available
 * condition's reasons and transition times, and the headers the proxy sends.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiServiceDefinition } from '../../src/api/kinds/apiregistration/apiservice.js';
import { builtinResources, ResourceRegistry } from '../../src/api/index.js';
import type { SvcObject } from '../../src/api/types.js';
import { checkAvailability, withCondition } from '../../src/apiserver/aggregator/availability.js';
import { builtinPriority, localApiServices } from '../../src/apiserver/aggregator/priorities.js';
import { DEFAULT_IDENTITY_HEADERS, forwardedHeaders, identityHeaders } from '../../src/apiserver/aggregator/proxy.js';
import { resolveCluster, resolveEndpoint, RoutingError } from '../../src/apiserver/aggregator/routing.js';

function apiService(spec: Record<string, unknown>, name?: string): SvcObject {
  const n = name ?? `${String(spec['version'])}.${String(spec['group'])}`;
  return { apiVersion: 'apiregistration.svc.io/v1', kind: 'APIService', metadata: { name: n }, spec };
}

const messages = (o: SvcObject) => apiServiceDefinition.validate!(o).map((e) => `${e.field}: ${e.message}`);

test('APIService validation: the name is version.group, priorities in range, local ones without TLS settings', () => {
  const ok = apiService({ group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'w', name: 'api', port: 443 } });
  assert.equal(messages(ok), []);
  assert.equal(messages(apiService({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }, 'v1.')), []);
  const bad = messages(apiService({ group: 'x.io', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001 }, 'wrong'));
  assert.ok(bad.some((m) => m.startsWith('metadata.name:') && m.includes('must be `spec.version+"."+spec.group`: "v1.x.io"')), bad.join('\n'));
  assert.ok(bad.some((m) => m.startsWith('spec.groupPriorityMinimum:') && m.includes('must be positive and less than 20000')));
  assert.ok(bad.some((m) => m.startsWith('spec.versionPriority:') && m.includes('must be positive and less than 1000')));
  assert.ok(messages(apiService({ group: '', version: 'v2', groupPriorityMinimum: 1, versionPriority: 1 }, 'v2.')).some((m) => m.includes('only v1 may have an empty group')));
  assert.ok(messages(apiService({ group: 'a.io', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: 'AAAA' })).some((m) => m.includes('local APIServices may not have a caBundle')));
  const both = apiService({ group: 'a.io', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, caBundle: 'AAAA', insecureSkipTLSVerify: true, service: { namespace: 'n', name: 's', port: 70000 } });
  assert.ok(messages(both).some((m) => m.startsWith('spec.insecureSkipTLSVerify:') && m.includes('may not be true if caBundle is present')));
  assert.ok(messages(both).some((m) => m.startsWith('spec.service.port:') && m.includes('port is not valid')));
  const defaulted = apiService({ group: 'a.io', version: 'v1', service: { namespace: 'n', name: 's' } });
  apiServiceDefinition.defaults!(defaulted);
  assert.is((defaulted['spec'] as { service: { port: number } }).service.port, 443);
});

test('APIService columns: SERVICE is Local or namespace/name, AVAILABLE shows the reason when not True', () => {
  const cols = apiServiceDefinition.tableColumns!;
  assert.equal(cols.columns.map((c) => c.name), ['Name', 'Service', 'Available', 'Age']);
  const local = { ...apiService({ group: 'apps', version: 'v1' }), status: { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] } };
  assert.equal(cols.cells(local, Date.now()).slice(0, 3), ['v1.apps', 'Local', 'True']);
  const down = { ...apiService({ group: 'w.io', version: 'v1', service: { namespace: 'w', name: 'api' } }), status: { conditions: [{ type: 'Available', status: 'False', reason: 'ServiceNotFound' }] } };
  assert.equal(cols.cells(down, Date.now()).slice(0, 3), ['v1.w.io', 'w/api', 'False (ServiceNotFound)']);
});

test('local APIServices: every served built-in group/version with the established priorities, custom resources at 1000/100', () => {
  const registry = new ResourceRegistry(builtinResources());
  const local = localApiServices(registry);
  const byName = new Map(local.map((l) => [l.name, l]));
  assert.equal(byName.get('v1.')?.priority, { group: 18000, version: 1 });
  assert.equal(byName.get('v1.apps')?.priority, { group: 17800, version: 15 });
  assert.equal(byName.get('v2.autoscaling')?.priority, { group: 17500, version: 30 });
  assert.equal(byName.get('v1beta1.discovery.svc.io')?.priority, { group: 16200, version: 12 });
  assert.is(byName.get('v1.apps')?.managed, 'onstart');
  for (const { group, version } of registry.enabledGroupVersions()) assert.ok(byName.has(`${version}.${group}`), `${version}.${group}`);
  assert.is(builtinPriority('flowcontrol.apiserver.svc.io', 'v1beta3')?.group, 16100);
  const crd = { ...builtinResources().find((d) => d.plural === 'configmaps')!, group: 'stable.example.com', version: 'v1', plural: 'crontabs', kind: 'CronTab' };
  registry.setDynamic('crontabs.stable.example.com', [crd]);
  assert.equal(localApiServices(registry).find((l) => l.name === 'v1.stable.example.com'), { name: 'v1.stable.example.com', group: 'stable.example.com', version: 'v1', priority: { group: 1000, version: 100 }, managed: 'true' });
  // --runtime-config turns a group/version off: its APIService is no longer wanted.
  assert.not.ok(localApiServices(new ResourceRegistry(builtinResources(), { 'batch/v1beta1': 'false' })).some((l) => l.name === 'v1beta1.batch'));
});

const svc = (spec: Record<string, unknown>): SvcObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'w' }, spec });
const eps = (subsets: unknown[]): SvcObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'api', namespace: 'w' }, subsets });

test('routing: cluster IP at the service port, or a ready endpoint at the port of the same name', () => {
  const s = svc({ type: 'ClusterIP', clusterIP: '10.0.0.7', ports: [{ name: 'https', port: 443, targetPort: 8443 }] });
  assert.equal(resolveCluster(s, 443), { host: '10.0.0.7', port: 443 });
  assert.throws(() => resolveCluster(s, 444), (e: Error) => e instanceof RoutingError && e.message === 'no service port 444 found for service "api"');
  assert.throws(() => resolveCluster(svc({ clusterIP: 'None', ports: [{ port: 443 }] }), 443), /cannot route to service with ClusterIP "None"/);
  assert.equal(resolveCluster(svc({ type: 'ExternalName', externalName: 'ext.example.com' }), 8443), { host: 'ext.example.com', port: 8443 });
  const e = eps([{ addresses: [{ ip: '127.0.0.1' }], notReadyAddresses: [{ ip: '127.0.0.2' }], ports: [{ name: 'https', port: 8443 }, { name: 'other', port: 9 }] }]);
  for (let i = 0; i < 5; i++) assert.equal(resolveEndpoint(s, e, 443), { host: '127.0.0.1', port: 8443 });
  assert.throws(() => resolveEndpoint(s, eps([{ notReadyAddresses: [{ ip: '127.0.0.2' }], ports: [{ name: 'https', port: 8443 }] }]), 443), /no endpoints available for service "api"/);
  assert.throws(() => resolveEndpoint(svc({ type: 'ExternalName', externalName: 'x', ports: [{ port: 443 }] }), e, 443), /unsupported service type "ExternalName"/);
});

test('availability: the established reasons before any discovery call', async () => {
  const remote = apiService({ group: 'w.io', version: 'v1', service: { namespace: 'w', name: 'api', port: 443 } });
  const probe = { names: DEFAULT_IDENTITY_HEADERS, timeoutMs: 500 };
  const lookups = (service?: SvcObject, endpoints?: SvcObject) => ({ service: async () => service, endpoints: async () => endpoints, resolve: () => ({ host: '127.0.0.1', port: 1 }) });
  const reason = async (service?: SvcObject, endpoints?: SvcObject) => (await checkAvailability(remote, lookups(service, endpoints), probe)).condition;
  assert.equal(await reason(), { type: 'Available', status: 'False', reason: 'ServiceNotFound', message: 'service/api in "w" is not present' });
  const s = svc({ ports: [{ name: 'https', port: 443 }] });
  assert.equal((await reason(svc({ ports: [{ port: 80 }] }))).reason, 'ServicePortError');
  assert.equal((await reason(s)).message, 'cannot find endpoints for service/api in "w"');
  assert.equal(await reason(s, eps([{ addresses: [{ ip: '1.2.3.4' }], ports: [{ name: 'other', port: 1 }] }])), {
    type: 'Available', status: 'False', reason: 'MissingEndpoints', message: 'endpoints for service/api in "w" have no addresses with port name "https"',
  });
  const failed = await reason(s, eps([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: 1 }] }]));
  assert.is(failed.reason, 'FailedDiscoveryCheck');
  assert.match(failed.message, 'failing or missing response from https://127.0.0.1:1/apis/w.io/v1');
  assert.equal((await checkAvailability(apiService({ group: 'apps', version: 'v1' }), lookups(), probe)).condition.reason, 'Local');
});

test('the Available condition keeps its transition time while its status holds', () => {
  const first = withCondition(undefined, { type: 'Available', status: 'False', reason: 'ServiceNotFound', message: 'm' }, 'T1');
  const same = withCondition(first, { type: 'Available', status: 'False', reason: 'EndpointsNotFound', message: 'n' }, 'T2');
  assert.equal((same['conditions'] as Record<string, unknown>[])[0], { type: 'Available', status: 'False', reason: 'EndpointsNotFound', message: 'n', lastTransitionTime: 'T1' });
  const flipped = withCondition(same, { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }, 'T3');
  assert.is((flipped['conditions'] as Record<string, unknown>[])[0]!['lastTransitionTime'], 'T3');
});

test('proxy headers: the user as identity headers; credentials, impersonation and client identity headers dropped', () => {
  assert.equal(identityHeaders({ username: 'alice', groups: ['devs', 'system:authenticated'], extra: { 'scopes.example/x': ['a', 'b'] } }, DEFAULT_IDENTITY_HEADERS), {
    'x-remote-user': 'alice',
    'x-remote-group': ['devs', 'system:authenticated'],
    'x-remote-extra-scopes.example%2Fx': ['a', 'b'],
  });
  const names = { user: 'X-Proxy-User', group: 'X-Proxy-Group', extraPrefix: 'X-Proxy-Extra-' };
  assert.equal(identityHeaders({ username: 'bob', groups: [] }, names), { 'x-proxy-user': 'bob' });
  const forwarded = forwardedHeaders(
    { ':path': '/x', accept: 'application/json', authorization: 'Bearer t', 'impersonate-user': 'root', 'x-remote-user': 'mallory', 'x-proxy-extra-a': '1', connection: 'keep-alive', 'user-agent': 'kubectl' },
    names,
  );
  assert.equal(forwarded, { accept: 'application/json', 'user-agent': 'kubectl' });
});

test.run();
