/**
 * Discovery documents: /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>, derived from
 * the resource registry (the one description of each kind), merged with the groups of extension
 * API servers the aggregation layer proxies to (./aggregator/): those are listed in /apis and
 * served at /apis/<group>; their /apis/<group>/<version> is the extension server's own, proxied.
 * Groups are ordered as established: highest groupPriorityMinimum first (the local ones keep
 * their order, which follows the same table), ties by name.
 */
import { canonicalGroup, establishedGroup } from '../api/established-spelling.js';
import type { ResourceRegistry } from '../api/index.js';
import { parseAccept } from '../codec/negotiation.js';
import type { ResourceDefinition } from '../api/types.js';
import { localGroupPriority } from './aggregator/priorities.js';

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
  approval: { verbs: ['get', 'patch', 'update'] },
  scale: { verbs: ['get', 'patch', 'update'], kind: 'Scale', group: 'autoscaling', version: 'v1' },
  binding: { verbs: ['create'], kind: 'Binding' },
  eviction: { verbs: ['create'], kind: 'Eviction', group: 'policy', version: 'v1beta1' },
  log: { verbs: ['get'], kind: 'Pod' },
  exec: { verbs: ['create', 'get'], kind: 'PodExecOptions' },
  attach: { verbs: ['create', 'get'], kind: 'PodAttachOptions' },
  portforward: { verbs: ['create', 'get'], kind: 'PodPortForwardOptions' },
};

/** One served subresource of a kind: its name, what it answers with, its verbs (both discovery forms list these). */
interface ServedSubresource {
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

/** Subresources served only while a setting holds: `serviceaccounts/token` needs a signing key (and the TokenRequest gate). */
export interface ConditionalSubresources {
  serviceAccountToken: boolean;
}

function subresourcesOf(d: ResourceDefinition, conditional?: ConditionalSubresources): ServedSubresource[] {
  const out: ServedSubresource[] = d.subresources.map((sub) => {
    const info = SUBRESOURCE_VERBS[sub]!;
    return { name: sub, kind: info.kind ?? d.kind, verbs: info.verbs, ...(info.group ? { group: info.group } : {}), ...(info.version ? { version: info.version } : {}) };
  });
  if (d.group === '' && d.plural === 'namespaces') out.push({ name: 'finalize', kind: 'Namespace', verbs: ['update'] });
  if (d.group === '' && d.plural === 'serviceaccounts' && conditional?.serviceAccountToken) {
    out.push({ name: 'token', kind: 'TokenRequest', group: 'authentication.svc.io', version: 'v1', verbs: ['create'] });
  }
  return out;
}

export function apiResources(defs: ResourceDefinition[], conditional?: ConditionalSubresources): ApiResource[] {
  const out: ApiResource[] = [];
  for (const d of defs) {
    const r: ApiResource = { name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: [...d.verbs] };
    if (d.shortNames.length) r.shortNames = [...d.shortNames];
    if (d.categories.length) r.categories = [...d.categories];
    out.push(r);
    for (const sub of subresourcesOf(d, conditional)) {
      const sr: ApiResource = { name: `${d.plural}/${sub.name}`, singularName: '', namespaced: d.namespaced, kind: sub.kind, verbs: sub.verbs };
      if (sub.group) sr.group = sub.group;
      if (sub.version) sr.version = sub.version;
      out.push(sr);
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** A group served by extension API servers (from APIServices with a service). */
export interface ExtensionGroup {
  name: string;
  /** Highest versionPriority first; the first is preferred. */
  versions: string[];
  /** The group's highest groupPriorityMinimum. */
  priority: number;
  /** The extension server's APIResourceList `resources` of a version, when its discovery was read. */
  resources(version: string): ApiResource[] | undefined;
}

/** Where the extension groups come from (the aggregator). */
export interface DiscoveryExtensions {
  groups(): ExtensionGroup[];
}

/** Aggregated discovery's group (either spelling is accepted, through the alias table) and versions. */
const AGGREGATED_GROUP = 'apidiscovery.svc.io';
const AGGREGATED_VERSIONS = new Set(['v2', 'v2beta1']);

/** A discovery document and the Content-Type it goes out with. */
export interface DiscoveryDocument {
  body: Buffer;
  contentType: string;
}

export class Discovery {
  private readonly cache = new Map<string, Buffer>();
  private extensions: DiscoveryExtensions | undefined;
  constructor(
    private readonly registry: ResourceRegistry,
    private readonly serverAddress: () => string,
    private readonly conditional: ConditionalSubresources = { serviceAccountToken: false },
  ) {
    // Custom resources come and go at run time: every document is rebuilt after a change.
    registry.onChange(() => this.cache.clear());
  }

  /** Merges the groups of extension servers from now on. */
  setExtensions(extensions: DiscoveryExtensions): void {
    this.extensions = extensions;
    this.cache.clear();
  }

  /** Forgets every built document (an APIService or an extension's discovery changed). */
  invalidate(): void {
    this.cache.clear();
  }

  private memo(key: string, build: () => object): Buffer {
    let b = this.cache.get(key);
    if (!b) this.cache.set(key, (b = Buffer.from(JSON.stringify(build()))));
    return b;
  }

  /**
   * The document for a discovery path, or undefined when the path is not one. `/api` and `/apis`
   * come aggregated (APIGroupDiscoveryList, every group's resources in one document) when Accept
   * asks for that first; its Content-Type then echoes the clause that asked.
   */
  serve(path: string, accept: string | undefined): DiscoveryDocument | undefined {
    const p = path.endsWith('/') && path.length > 1 ? path.slice(0, -1) : path;
    if (p === '/api' || p === '/apis') {
      const aggregated = aggregatedClause(accept);
      if (aggregated) {
        const { group, version, contentType } = aggregated;
        const body = this.memo(`${p} ${group}/${version}`, () => this.aggregated(p === '/api', `${group}/${version}`));
        return { body, contentType };
      }
    }
    const body = this.document(p);
    return body ? { body, contentType: 'application/json' } : undefined;
  }

  /** The legacy document for a discovery path (no trailing slash), or undefined. */
  private document(p: string): Buffer | undefined {
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
      return this.memo(p, () => ({ kind: 'APIResourceList', groupVersion: 'v1', resources: apiResources(defs, this.conditional) }));
    }
    if (p === '/apis') {
      return this.memo(p, () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: this.groups().map((g) => this.group(g)) }));
    }
    const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(p);
    if (!m) return undefined;
    const [, group, version] = m;
    const g = this.groups().find((x) => x.name === group);
    if (g?.extension) return version ? undefined : this.memo(p, () => ({ kind: 'APIGroup', apiVersion: 'v1', ...this.group(g) }));
    if (!g) return undefined;
    if (!version) return this.memo(p, () => ({ kind: 'APIGroup', apiVersion: 'v1', ...this.group(g) }));
    if (!g.versions.includes(version)) return undefined;
    return this.memo(p, () => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${group}/${version}`,
      resources: apiResources(this.registry.resourcesFor(g.canonical, version), this.conditional),
    }));
  }

  /**
   * Groups as discovery lists them: each of ours, and, where the established system spells it
   * differently, the same group under that name just before it. Clients written for that system
   * look groups up by the name their manifests use, and where a resource is served under two
   * groups take the first (so kubectl prints `role.rbac.authorization.k8s.io`, as its users expect).
   */
  private groups(): DiscoveredGroup[] {
    const out: (DiscoveredGroup & { priority: number })[] = [];
    for (const g of this.registry.groups()) {
      if (g.name === '') continue;
      const priority = localGroupPriority(this.registry, g.name);
      const alias = establishedGroup(g.name);
      if (alias !== g.name) out.push({ ...g, name: alias, canonical: g.name, priority });
      out.push({ ...g, canonical: g.name, priority });
    }
    const extensions = (this.extensions?.groups() ?? [])
      .filter((e) => !out.some((g) => g.canonical === e.name || g.name === e.name))
      .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Each extension group goes before the first local group of lower priority.
    for (const e of extensions) {
      const at = out.findIndex((g) => g.priority < e.priority && !g.extension);
      const entry = { name: e.name, canonical: e.name, versions: e.versions, preferredVersion: e.versions[0] ?? '', priority: e.priority, extension: e };
      if (at < 0) out.push(entry);
      else out.splice(at, 0, entry);
    }
    return out;
  }

  private group(g: { name: string; versions: string[]; preferredVersion: string }) {
    return {
      name: g.name,
      versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${g.name}/${g.preferredVersion}`, version: g.preferredVersion },
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
    };
  }

  /** APIGroupDiscoveryList of the core group (`/api`) or of every named group (`/apis`). */
  private aggregated(core: boolean, apiVersion: string): object {
    const groups: DiscoveredGroup[] = core
      ? this.registry.enabledGroupVersions().some((gv) => gv.group === '')
        ? [{ name: '', canonical: '', versions: ['v1'], preferredVersion: 'v1' }]
        : []
      : this.groups();
    return {
      kind: 'APIGroupDiscoveryList',
      apiVersion,
      metadata: {},
      items: groups.map((g) => ({
        metadata: g.name ? { name: g.name } : {},
        // Preferred version first, as clients take the first as the default.
        versions: [g.preferredVersion, ...g.versions.filter((v) => v !== g.preferredVersion)].map((version) => {
          if (g.extension) {
            // An extension's resources as its server last described them; Stale until it has.
            const listed = g.extension.resources(version);
            return { version, resources: listed ? extensionResources(listed, g.name, version) : [], freshness: listed ? 'Current' : 'Stale' };
          }
          return { version, resources: aggregatedResources(this.registry.resourcesFor(g.canonical, version), g.name, version, this.conditional), freshness: 'Current' };
        }),
      })),
    };
  }
}

interface DiscoveredGroup {
  /** The name discovery shows (ours or the established one). */
  name: string;
  /** Our name: the registry's key. */
  canonical: string;
  versions: string[];
  preferredVersion: string;
  /** Set for a group served by extension servers. */
  extension?: ExtensionGroup;
}

/** An extension's APIResourceList `resources` in the aggregated form (subresources nested). */
function extensionResources(list: ApiResource[], group: string, version: string): object[] {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const arr = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return list
    .filter((r) => typeof r.name === 'string' && !r.name.includes('/'))
    .map((r) => {
      const out: Record<string, unknown> = {
        resource: r.name,
        responseKind: { group, version, kind: str(r.kind) },
        scope: r.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: str(r.singularName) || str(r.kind).toLowerCase(),
        verbs: arr(r.verbs),
      };
      if (arr(r.shortNames).length) out['shortNames'] = arr(r.shortNames);
      if (arr(r.categories).length) out['categories'] = arr(r.categories);
      const subs = list
        .filter((s) => typeof s.name === 'string' && s.name.startsWith(`${r.name}/`))
        .map((s) => ({ subresource: s.name.slice(r.name.length + 1), responseKind: { group: str(s.group) || group, version: str(s.version) || version, kind: str(s.kind) }, verbs: arr(s.verbs) }));
      if (subs.length) out['subresources'] = subs;
      return out;
    });
}

/** The resources of one group version as aggregated discovery lists them (subresources nested). */
function aggregatedResources(defs: ResourceDefinition[], group: string, version: string, conditional: ConditionalSubresources): object[] {
  return [...defs]
    .sort((a, b) => a.plural.localeCompare(b.plural))
    .map((d) => {
      const r: Record<string, unknown> = {
        resource: d.plural,
        responseKind: { group, version, kind: d.kind },
        scope: d.namespaced ? 'Namespaced' : 'Cluster',
        singularResource: d.singular,
        verbs: [...d.verbs],
      };
      if (d.shortNames.length) r['shortNames'] = [...d.shortNames];
      if (d.categories.length) r['categories'] = [...d.categories];
      const subs = subresourcesOf(d, conditional).map((sub) => ({ subresource: sub.name, responseKind: { group: sub.group ?? group, version: sub.version ?? version, kind: sub.kind }, verbs: sub.verbs }));
      if (subs.length) r['subresources'] = subs;
      return r;
    });
}

/**
 * The Accept clause that asks for aggregated discovery, when one comes before any plain JSON
 * clause; its media type and parameters become the response Content-Type, as clients check.
 */
function aggregatedClause(accept: string | undefined): { group: string; version: string; contentType: string } | undefined {
  for (const range of parseAccept(accept)) {
    const { g, v, as } = range.params;
    if (range.type === 'application/json' && as === 'APIGroupDiscoveryList' && g && v && canonicalGroup(g) === AGGREGATED_GROUP && AGGREGATED_VERSIONS.has(v)) {
      return { group: g, version: v, contentType: `application/json;g=${g};v=${v};as=APIGroupDiscoveryList` };
    }
    if (typeMatchesJson(range.type) && range.params['as'] === undefined) return undefined;
  }
  return undefined;
}

function typeMatchesJson(type: string): boolean {
  return type === 'application/json' || type === 'application/*' || type === '*/*';
}
