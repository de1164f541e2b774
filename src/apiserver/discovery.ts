/**
 * Discovery documents: /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>, derived from
 * the resource registry (the one description of each kind).
 */
import type { ResourceRegistry } from '../api/index.js';
import type { ResourceDefinition } from '../api/types.js';

export interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  group?: string;
  version?: string;
}

const SUBRESOURCE_VERBS: Record<string, { verbs: string[]; kind?: string; group?: string; version?: string }> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { verbs: ['get', 'patch', 'update'], kind: 'Scale', group: 'autoscaling', version: 'v1' },
  binding: { verbs: ['create'], kind: 'Binding' },
  eviction: { verbs: ['create'], kind: 'Eviction', group: 'policy', version: 'v1beta1' },
};

export function apiResources(defs: ResourceDefinition[]): ApiResource[] {
  const out: ApiResource[] = [];
  for (const d of defs) {
    const r: ApiResource = { name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: [...d.verbs] };
    if (d.shortNames.length) r.shortNames = [...d.shortNames];
    if (d.categories.length) r.categories = [...d.categories];
    out.push(r);
    for (const sub of d.subresources) {
      const info = SUBRESOURCE_VERBS[sub]!;
      const sr: ApiResource = { name: `${d.plural}/${sub}`, singularName: '', namespaced: d.namespaced, kind: info.kind ?? d.kind, verbs: info.verbs };
      if (info.group) sr.group = info.group;
      if (info.version) sr.version = info.version;
      out.push(sr);
    }
    if (d.group === '' && d.plural === 'namespaces') {
      out.push({ name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export class Discovery {
  private readonly cache = new Map<string, Buffer>();
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly serverAddress: () => string,
  ) {
    // Custom resources come and go at run time: every document is rebuilt after a change.
    registry.onChange(() => this.cache.clear());
  }

  private memo(key: string, build: () => object): Buffer {
    let b = this.cache.get(key);
    if (!b) this.cache.set(key, (b = Buffer.from(JSON.stringify(build()))));
    return b;
  }

  /** Returns the document for a discovery path, or undefined when the path is not one. */
  document(path: string): Buffer | undefined {
    const p = path.endsWith('/') && path.length > 1 ? path.slice(0, -1) : path;
    if (p === '/api') {
      return this.memo(p, () => ({
        kind: 'APIVersions',
        versions: this.registry.enabledGroupVersions().some((gv) => gv.group === '') ? ['v1'] : [],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
      }));
    }
    if (p === '/api/v1') {
      const defs = this.registry.resourcesFor('', 'v1');
      if (!defs.length) return undefined;
      return this.memo(p, () => ({ kind: 'APIResourceList', groupVersion: 'v1', resources: apiResources(defs) }));
    }
    if (p === '/apis') {
      return this.memo(p, () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: this.groups().map((g) => this.group(g)) }));
    }
    const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(p);
    if (!m) return undefined;
    const [, group, version] = m;
    const g = this.groups().find((x) => x.name === group);
    if (!g) return undefined;
    if (!version) return this.memo(p, () => ({ kind: 'APIGroup', apiVersion: 'v1', ...this.group(g) }));
    if (!g.versions.includes(version)) return undefined;
    return this.memo(p, () => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${group}/${version}`,
      resources: apiResources(this.registry.resourcesFor(group!, version)),
    }));
  }

  private groups() {
    return this.registry.groups().filter((g) => g.name !== '');
  }

  private group(g: { name: string; versions: string[]; preferredVersion: string }) {
    return {
      name: g.name,
      versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${g.name}/${g.preferredVersion}`, version: g.preferredVersion },
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
    };
  }
}
