// Shared by the admission plugin tests: request attributes and the refusal a plugin throws.
import * as assert from 'uvu/assert';
import { podDefinition } from '../../../src/api/kinds/index.js';
import { StatusError } from '../../../src/api/status.js';
import type { ResourceDefinition, SvcObject } from '../../../src/api/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../../src/apiserver/admission/chain.js';

export const ALICE = { username: 'alice', groups: ['system:authenticated'] };

export function podAttrs(spec: Record<string, unknown>, extra: Partial<AdmissionAttributes> = {}, meta: Partial<SvcObject['metadata']> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    def: podDefinition,
    namespace: 'ns',
    name: 'p',
    subresource: '',
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...meta }, spec },
    dryRun: false,
    user: ALICE,
    ...extra,
  };
}

export function attrsFor(def: ResourceDefinition, object: SvcObject | undefined, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation: 'CREATE', def, namespace: object?.metadata.namespace ?? '', name: object?.metadata.name ?? '', subresource: '', ...(object ? { object } : {}), dryRun: false, user: ALICE, ...extra };
}

/** Runs the plugin as the chain does (mutate, then validate) when it handles the request. */
export async function admit(plugin: AdmissionPlugin, a: AdmissionAttributes): Promise<AdmissionAttributes> {
  if (!plugin.handles(a)) return a;
  await plugin.mutate?.(a);
  await plugin.validate?.(a);
  return a;
}

export async function refusal(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    return e;
  }
  assert.unreachable('expected a refusal');
  throw new Error('unreachable');
}

export function namespaces(list: SvcObject[]): (name: string) => Promise<SvcObject | undefined> {
  const byName = new Map(list.map((n) => [n.metadata.name, n]));
  return async (name) => byName.get(name);
}

export const ns = (name: string, annotations: Record<string, string> = {}): SvcObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations } });
