/**
 * The mirror controller's scenario (docs/examples/mirror-controller.ts), written against the
 * ApiClient alone so the same steps run over HTTPS and over the in-process transport. Each step
 * is a uvu test; the caller supplies how to start and stop the controller's surroundings.
 */
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { ApiError, createInformerFactory, resources, type ApiClient, type SharedInformerFactory } from '../../src/client/index.js';
import type { RunningController } from '../../src/runtime/index.js';
import mirrorDefault, { mirrorController, SOURCE_LABEL } from '../../docs/examples/mirror-controller.js';
import { eventually } from './client.js';
import { capturedLogger } from './sim.js';

export interface MirrorHarness {
  /** Starts the server and gives the clients: `controller` for the mirror, `user` for the test's own calls. */
  setUp(): Promise<{ controller: ApiClient; user: ApiClient }>;
  tearDown(): Promise<void>;
}

type ConfigMap = SvcObject & { data?: Record<string, string> };

/** Polls `f` until it gives a value (the shared `eventually` of ./client.ts, keeping what it found). */
async function found<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  let value: T | undefined;
  await eventually(async () => (value = await f()) !== undefined, 20_000, what);
  return value!;
}

export function mirrorScenario(suite: Test, harness: MirrorHarness): void {
  let user: ApiClient;
  let informers: SharedInformerFactory;
  let running: RunningController;
  const cm = resources.configmaps;

  const getCm = async (ns: string, name: string): Promise<ConfigMap | undefined> => {
    try {
      return await user.get<ConfigMap>(cm, ns, name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  };
  const copiesOf = async (id: string) => (await user.list<ConfigMap>(cm, { labelSelector: `${SOURCE_LABEL}=${id}` })).items;
  const namespaces = async () => (await user.list(resources.namespaces)).items.map((n) => n.metadata.name!);
  /** Waits until `id` has a copy in every namespace but `home`, each holding `data`. */
  const copiesEverywhere = (id: string, home: string, data: Record<string, string>) =>
    found(`copies of ${id} with ${JSON.stringify(data)}`, async () => {
      const want = (await namespaces()).filter((n) => n !== home).sort();
      const got = await copiesOf(id);
      const ok = JSON.stringify(got.map((c) => c.metadata.namespace).sort()) === JSON.stringify(want) && got.every((c) => JSON.stringify(c.data) === JSON.stringify(data));
      return ok ? got : undefined;
    });
  const noCopies = (id: string) => found(`no copies of ${id}`, async () => ((await copiesOf(id)).length === 0 ? true : undefined));
  const createNs = (name: string) => user.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const createCm = (ns: string, name: string, labels: Record<string, string>, data: Record<string, string>) =>
    user.create<ConfigMap>(cm, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data });

  suite.before(async () => {
    const clients = await harness.setUp();
    user = clients.user;
    informers = createInformerFactory(clients.controller);
    running = mirrorController.start({ client: clients.controller, informers, logger: capturedLogger().logger });
    await createNs('mirror-a');
    await createNs('mirror-b');
  });
  suite.after(async () => {
    await running?.stop();
    informers?.stop();
    await harness.tearDown();
  });

  suite('the module exports the definition as default and by name', () => {
    assert.is(mirrorDefault, mirrorController);
    assert.is(mirrorController.name, 'configmap-mirror');
  });

  suite('a labelled ConfigMap is copied into every other namespace; an unlabelled one is not', async () => {
    await createCm('mirror-a', 'settings', { mirror: 'true' }, { colour: 'blue' });
    await createCm('mirror-a', 'private', {}, { secret: 'no' });
    const copies = await copiesEverywhere('mirror-a.settings', 'mirror-a', { colour: 'blue' });
    assert.ok(copies.some((c) => c.metadata.namespace === 'mirror-b'));
    assert.ok(copies.some((c) => c.metadata.namespace === 'default'));
    for (const c of copies) assert.is(c.metadata.labels?.['mirror'], undefined, 'a copy is not itself a source');
    assert.is(await getCm('mirror-b', 'private'), undefined);
    // The Event is written after the copies (the recorder batches), so it may come a moment later.
    await found('a Mirrored Event', async () => {
      const events = await user.list(resources.events, { namespace: 'mirror-a', fieldSelector: 'involvedObject.name=settings' });
      return events.items.some((e) => e['reason'] === 'Mirrored') ? true : undefined;
    });
  });

  suite('copies follow the source data; a changed or deleted copy is put back', async () => {
    await user.patch(cm, 'mirror-a', 'settings', 'merge', { data: { colour: 'green' } });
    await copiesEverywhere('mirror-a.settings', 'mirror-a', { colour: 'green' });
    await user.patch(cm, 'mirror-b', 'settings', 'merge', { data: { colour: 'red' } });
    await found('the tampered copy restored', async () => ((await getCm('mirror-b', 'settings'))?.data?.['colour'] === 'green' ? true : undefined));
    const before = (await getCm('default', 'settings'))!;
    await user.delete(cm, 'default', 'settings');
    await found('the deleted copy re-created', async () => {
      const c = await getCm('default', 'settings');
      return c && c.metadata.uid !== before.metadata.uid ? true : undefined;
    });
  });

  suite('a new namespace gets the copies', async () => {
    await createNs('mirror-c');
    await found('a copy in mirror-c', async () => ((await getCm('mirror-c', 'settings'))?.data?.['colour'] === 'green' ? true : undefined));
  });

  suite("someone else's ConfigMap of the same name is left alone, with a Warning", async () => {
    await createCm('mirror-b', 'taken', {}, { mine: 'yes' });
    await createCm('mirror-a', 'taken', { mirror: 'true' }, { theirs: 'yes' });
    await found('a copy in mirror-c', async () => ((await getCm('mirror-c', 'taken')) ? true : undefined));
    await found('a NameTaken Event', async () => {
      const events = await user.list(resources.events, { namespace: 'mirror-a', fieldSelector: 'involvedObject.name=taken' });
      return events.items.some((e) => e['reason'] === 'NameTaken' && e['type'] === 'Warning') ? true : undefined;
    });
    const mine = (await getCm('mirror-b', 'taken'))!;
    assert.equal(mine.data, { mine: 'yes' });
    assert.is(mine.metadata.labels?.[SOURCE_LABEL], undefined);
  });

  suite('a source whose <namespace>.<name> does not fit a label value gets a Warning and no copies', async () => {
    const long = 'x'.repeat(60);
    await createCm('mirror-a', long, { mirror: 'true' }, { a: 'b' });
    await found('a NameTooLong Event', async () => {
      const events = await user.list(resources.events, { namespace: 'mirror-a', fieldSelector: `involvedObject.name=${long}` });
      return events.items.some((e) => e['reason'] === 'NameTooLong' && e['type'] === 'Warning') ? true : undefined;
    });
    assert.is(await getCm('mirror-b', long), undefined);
  });

  suite('removing the label removes the copies; labelling again brings them back', async () => {
    await user.patch(cm, 'mirror-a', 'settings', 'merge', { metadata: { labels: { mirror: null } } });
    await noCopies('mirror-a.settings');
    await found('an Unmirrored Event', async () => {
      const events = await user.list(resources.events, { namespace: 'mirror-a', fieldSelector: 'involvedObject.name=settings' });
      return events.items.some((e) => e['reason'] === 'Unmirrored') ? true : undefined;
    });
    await user.patch(cm, 'mirror-a', 'settings', 'merge', { metadata: { labels: { mirror: 'true' } } });
    await copiesEverywhere('mirror-a.settings', 'mirror-a', { colour: 'green' });
  });

  suite('deleting the source removes its copies', async () => {
    await user.delete(cm, 'mirror-a', 'settings');
    await noCopies('mirror-a.settings');
    await user.delete(cm, 'mirror-a', 'taken');
    await noCopies('mirror-a.taken');
    assert.equal((await getCm('mirror-b', 'taken'))?.data, { mine: 'yes' }, "someone else's ConfigMap stays");
  });

  suite('stop drains and ends in stopped', async () => {
    assert.is(await running.stop(), 'stopped');
  });
}
