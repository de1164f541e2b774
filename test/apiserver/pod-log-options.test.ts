// pods/log's side of the API server (src/apiserver/handlers/pod-log.ts): PodLogOptions from the
// query with the established 400/422 answers, the container a request is about, and where a
// node's agent is reached (--svclet-preferred-address-types order, the published port).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { StatusError } from '../../src/api/status.js';
import { DEFAULT_SVCLET_CLIENT } from '../../src/apiserver/config.js';
import { agentLocation, logContainer, parsePodLogOptions } from '../../src/apiserver/handlers/pod-log.js';

function statusOf(f: () => unknown): { code: number; reason: string; message: string } {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return { code: e.status.code, reason: e.status.reason ?? '', message: e.status.message ?? '' };
  }
  throw new Error('no error');
}

const q = (s: string) => new URLSearchParams(s);

test('PodLogOptions: values read; out of range is 422 Invalid; malformed and unknown are 400', () => {
  assert.equal(parsePodLogOptions(q('container=c&follow=true&tailLines=5&limitBytes=9&sinceSeconds=3&timestamps=true'), 'web'), {
    follow: true, previous: false, timestamps: true, insecureSkipTLSVerifyBackend: false, container: 'c', sinceSeconds: 3, tailLines: 5, limitBytes: 9,
  });
  const neg = statusOf(() => parsePodLogOptions(q('tailLines=-1'), 'web'));
  assert.equal([neg.code, neg.reason], [422, 'Invalid']);
  assert.match(neg.message, /PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/);
  assert.match(statusOf(() => parsePodLogOptions(q('limitBytes=0'), 'web')).message, /limitBytes: Invalid value: 0: must be greater than 0/);
  assert.match(statusOf(() => parsePodLogOptions(q('sinceSeconds=2&sinceTime=2026-01-01T00:00:00Z'), 'web')).message, /at most one of `sinceTime` or `sinceSeconds` may be specified/);
  assert.is(statusOf(() => parsePodLogOptions(q('tailLines=many'), 'web')).code, 400);
  assert.is(statusOf(() => parsePodLogOptions(q('sinceTime=yesterday'), 'web')).code, 400);
  assert.match(statusOf(() => parsePodLogOptions(q('colour=red'), 'web')).message, /unknown query parameter "colour" for pods\/log/);
});

test('the container: the only one, the one named, or the established 400s', () => {
  const pod = (containers: string[], inits: string[] = []): SvcObject => ({ metadata: { name: 'p' }, spec: { containers: containers.map((name) => ({ name })), initContainers: inits.map((name) => ({ name })) } }) as SvcObject;
  assert.is(logContainer(pod(['a']), 'p', undefined), 'a');
  assert.is(logContainer(pod(['a', 'b'], ['i']), 'p', 'i'), 'i');
  assert.equal(statusOf(() => logContainer(pod(['a', 'b']), 'p', undefined)), { code: 400, reason: 'BadRequest', message: 'a container name must be specified for pod p, choose one of: [a b]' });
  assert.is(statusOf(() => logContainer(pod(['a', 'b'], ['i', 'j']), 'p', undefined)).message, 'a container name must be specified for pod p, choose one of: [a b] or one of the init containers: [i j]');
  assert.is(statusOf(() => logContainer(pod(['a']), 'p', 'z')).message, 'container z is not valid for pod p');
});

test('the agent: the first address of the preferred types, the published port, https unless told', () => {
  const node = { metadata: { name: 'n' }, status: { addresses: [{ type: 'InternalIP', address: '172.16.0.1' }, { type: 'Hostname', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 4321 } } } } as unknown as SvcObject;
  assert.equal(agentLocation(node, DEFAULT_SVCLET_CLIENT), { scheme: 'https', host: '127.0.0.1', port: 4321 });
  assert.equal(agentLocation(node, { ...DEFAULT_SVCLET_CLIENT, https: false, preferredAddressTypes: ['InternalIP'] }), { scheme: 'http', host: '172.16.0.1', port: 4321 });
  assert.match(statusOf(() => agentLocation(node, { ...DEFAULT_SVCLET_CLIENT, preferredAddressTypes: ['ExternalIP'] })).message, /no preferred addresses found; known addresses: \[InternalIP=172\.16\.0\.1, Hostname=127\.0\.0\.1\]/);
  const portless = { metadata: { name: 'n' }, status: { addresses: [{ type: 'Hostname', address: 'h' }] } } as unknown as SvcObject;
  assert.is(statusOf(() => agentLocation(portless, DEFAULT_SVCLET_CLIENT)).code, 500);
});

test.run();
