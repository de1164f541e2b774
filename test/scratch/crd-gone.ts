import { startApiServer } from '../helpers/apiserver.js';
const CRDS = '/apis/apiextensions.svc.io/v1/customresourcedefinitions';
const s = await startApiServer();
try {
  for (let round = 0; round < 5; round++) {
    const group = `g${round}.example.com`;
    const crd = { apiVersion: 'apiextensions.svc.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true }] } };
    console.log('create', (await s.request('POST', CRDS, crd)).status);
    const base = `/apis/${group}/v1/namespaces/default/gadgets`;
    for (let i = 0; i < 50 && (await s.request('GET', base)).status !== 200; i++) await new Promise((r) => setTimeout(r, 20));
    console.log('obj', (await s.request('POST', base, { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'a' } })).status);
    console.log('cluster list before delete', (await s.request('GET', `/apis/${group}/v1/gadgets`)).status, (await s.request('GET', `${base}?watch=1&timeoutSeconds=1`)).status);
    console.log('del', (await s.request('DELETE', `${CRDS}/gadgets.${group}`)).status);
    const seen: string[] = [];
    for (let i = 0; i < 100; i++) {
      const c = (await s.request('GET', `${CRDS}/gadgets.${group}`)).status;
      const l = await s.request('GET', base);
      const all = (await s.request('GET', `/apis/${group}/v1/gadgets`)).status;
      const w = (await s.request('GET', `${base}?watch=1&timeoutSeconds=1`)).status;
      seen.push(`${c}/${l.status}/${all}/${w}`);
      if (c === 404 && l.status === 404) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    console.log([...new Set(seen)].join(' '));
    // recreate same group immediately: old objects must not reappear
    console.log('recreate', (await s.request('POST', CRDS, crd)).status);
    for (let i = 0; i < 50 && (await s.request('GET', base)).status !== 200; i++) await new Promise((r) => setTimeout(r, 20));
    console.log('list after recreate', JSON.stringify((await s.request('GET', base)).json.items?.map((x: any) => x.metadata.name)));
  }
} finally { await s.stop(); s.cleanup(); }
