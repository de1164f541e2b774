// Dry run rule 2 in the admission chain: a plugin with side effects makes a dry-run request fail;
// None and NoneOnDryRun plugins run as usual; real requests are unaffected.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { podDefinition } from '../../src/api/index.js';
import { StatusError } from '../../src/api/status.js';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin, type SideEffects } from '../../src/apiserver/admission/chain.js';

function plugin(name: string, sideEffects: SideEffects, calls: string[]): AdmissionPlugin {
  return {
    name,
    sideEffects,
    handles: () => true,
    mutate: () => void calls.push(`${name}:mutate`),
    validate: () => void calls.push(`${name}:validate`),
  };
}

const attrs = (dryRun: boolean): AdmissionAttributes => ({
  operation: 'CREATE',
  def: podDefinition,
  namespace: 'default',
  name: 'p',
  subresource: '',
  object: { metadata: { name: 'p' } },
  dryRun,
  user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
});

test('a dry-run request fails when a plugin with side effects Some applies', async () => {
  const calls: string[] = [];
  const chain = new AdmissionChain([plugin('Safe', 'None', calls), plugin('Audit', 'Some', calls)]);
  try {
    await chain.mutate(attrs(true));
    assert.unreachable('expected a failure');
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.is(err.status.code, 400);
    assert.match(err.status.message ?? '', /Audit.*side effects.*dry run/);
  }
  assert.equal(calls, [], 'no plugin ran');
});

test('sideEffects Unknown also fails a dry-run request, in the validating phase too', async () => {
  const chain = new AdmissionChain([plugin('Hook', 'Unknown', [])]);
  await chain.validate(attrs(true)).then(
    () => assert.unreachable('expected a failure'),
    (err: unknown) => assert.is((err as StatusError).status.code, 400),
  );
});

test('None and NoneOnDryRun plugins run on a dry-run request', async () => {
  const calls: string[] = [];
  const chain = new AdmissionChain([plugin('A', 'None', calls), plugin('B', 'NoneOnDryRun', calls)]);
  await chain.mutate(attrs(true));
  await chain.validate(attrs(true));
  assert.equal(calls, ['A:mutate', 'B:mutate', 'A:validate', 'B:validate']);
});

test('a plugin with side effects runs normally on a real request', async () => {
  const calls: string[] = [];
  const chain = new AdmissionChain([plugin('Audit', 'Some', calls)]);
  await chain.mutate(attrs(false));
  await chain.validate(attrs(false));
  assert.equal(calls, ['Audit:mutate', 'Audit:validate']);
});

test('a plugin with side effects that does not apply to the request does not fail it', async () => {
  const calls: string[] = [];
  const chain = new AdmissionChain([{ ...plugin('Other', 'Some', calls), handles: () => false }, plugin('A', 'None', calls)]);
  await chain.mutate(attrs(true));
  assert.equal(calls, ['A:mutate']);
});

test.run();
