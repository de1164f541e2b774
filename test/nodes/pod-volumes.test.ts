// A simulated node's projected volumes: the TokenRequest it makes (bound to the pod), the refresh at
// 80% of the lifetime (or 24 h), retries, and the end of refreshes when the pod goes. A manual clock
// and a recording client stand in for time and the API server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pino } from 'pino';
import type { Pod } from '../../src/api/generated/kinds.js';
import type { Clock } from '../../src/client/clock.js';
import type { ApiClient } from '../../src/client/types.js';
import { downwardField, PodVolumes, refreshAt } from '../../src/nodes/pod-volumes.js';

class ManualClock implements Clock {
  t = 1_000_000;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimeout(id: unknown): void {
    this.timers.delete(id as number);
  }
  pending(): number[] {
    return [...this.timers.values()].map((x) => x.at - this.t).sort((a, b) => a - b);
  }
  advance(ms: number): void {
    this.t += ms;
    for (const [id, x] of [...this.timers]) {
      if (x.at <= this.t) {
        this.timers.delete(id);
        x.fn();
      }
    }
  }
}

const settle = () => new Promise((r) => setTimeout(r, 10));

function fakeClient(clock: ManualClock, fail: { times: number }) {
  const requests: { path: string; body: Record<string, unknown> }[] = [];
  let n = 0;
  const client = {
    async subresource(_ref: unknown, namespace: string, name: string, sub: string, _method: string, body: Record<string, unknown>) {
      requests.push({ path: `${namespace}/${name}/${sub}`, body });
      if (fail.times > 0) {
        fail.times--;
        throw new Error('the server is away');
      }
      n++;
      const exp = ((body['spec'] as { expirationSeconds: number }).expirationSeconds);
      return { status: { token: `token-${n}`, expirationTimestamp: new Date(clock.now() + exp * 1000).toISOString() } };
    },
    async get(_ref: { resource: string }, _ns: string, name: string) {
      if (name === 'svc-root-ca.crt') return { data: { 'ca.crt': 'PEM' } };
      throw new Error('not found');
    },
  } as unknown as ApiClient;
  return { client, requests };
}

const pod = (): Pod =>
  ({
    metadata: { name: 'app', namespace: 'ns', uid: 'u1', labels: { b: '2', a: '1' } },
    spec: {
      serviceAccountName: 'runner',
      nodeName: 'node-0',
      containers: [],
      volumes: [
        {
          name: 'kube-api-access-abcde',
          projected: {
            sources: [
              { serviceAccountToken: { path: 'token', expirationSeconds: 3607, audience: 'vault' } },
              { configMap: { name: 'svc-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
    },
  }) as unknown as Pod;

test('refresh rule: 80% of the lifetime, at most 24 h', () => {
  assert.is(refreshAt(0, 10_000), 8_000);
  assert.is(refreshAt(0, 100 * 3_600_000), 24 * 3_600_000);
});

test('downward API fields', () => {
  const p = pod();
  assert.is(downwardField(p, 'metadata.namespace'), 'ns');
  assert.is(downwardField(p, 'metadata.labels'), 'a="1"\nb="2"');
  assert.is(downwardField(p, "metadata.labels['b']"), '2');
  assert.is(downwardField(p, 'spec.serviceAccountName'), 'runner');
  assert.is(downwardField(p, 'spec.unknown'), undefined);
});

test('the node asks for a token bound to the pod, refreshes it at 80% and stops when the pod goes', async () => {
  const clock = new ManualClock();
  const { client, requests } = fakeClient(clock, { times: 0 });
  const volumes = new PodVolumes({ client, clock, logger: pino({ level: 'silent' }), frozen: () => false });
  volumes.start(pod());
  await settle();
  assert.is(requests.length, 1);
  assert.is(requests[0]!.path, 'ns/runner/token');
  assert.equal(requests[0]!.body['spec'], { audiences: ['vault'], expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'app', uid: 'u1' } });
  const files = volumes.files('u1')!.get('kube-api-access-abcde')!;
  assert.equal(Object.fromEntries(files), { token: 'token-1', 'ca.crt': 'PEM', namespace: 'ns' });
  // expirationTimestamp has whole seconds: the refresh is due at 80% of 3607 s, within a second.
  const due = clock.pending()[0]!;
  assert.ok(Math.abs(due - 3607_000 * 0.8) <= 1000, String(due));
  clock.advance(due - 1);
  await settle();
  assert.is(requests.length, 1);
  clock.advance(1);
  await settle();
  assert.is(requests.length, 2);
  assert.is(volumes.files('u1')!.get('kube-api-access-abcde')!.get('token'), 'token-2');
  volumes.stop('u1');
  assert.equal(clock.pending(), []);
  assert.is(volumes.files('u1'), undefined);
});

test('a failed request is retried, 1 s doubling', async () => {
  const clock = new ManualClock();
  const { client, requests } = fakeClient(clock, { times: 2 });
  const volumes = new PodVolumes({ client, clock, logger: pino({ level: 'silent' }), frozen: () => false });
  volumes.start(pod());
  await settle();
  assert.equal(clock.pending(), [1000]);
  clock.advance(1000);
  await settle();
  assert.equal(clock.pending(), [2000]);
  clock.advance(2000);
  await settle();
  assert.is(requests.length, 3);
  assert.is(volumes.files('u1')!.get('kube-api-access-abcde')!.get('token'), 'token-1');
  volumes.stopAll();
});

test.run();
