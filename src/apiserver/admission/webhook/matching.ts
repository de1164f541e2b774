/**
 * Which admission webhooks a request calls, by the established rules (k8s.io/apiserver
 * admission/plugin/webhook: rules.Matcher, namespace and object matchers, ShouldCallHook):
 *
 * - namespaceSelector: a request for a cluster-scoped resource other than a namespace is never
 *   exempt; otherwise the labels of the request's namespace must match (for a namespace itself:
 *   its new object's labels on CREATE/UPDATE, the stored namespace's on DELETE). A namespace that
 *   does not exist is a 404 for a hook whose selector is not empty (and whose rules match).
 * - objectSelector: the object's or the old object's labels match (an empty selector: always).
 * - rules: operation (`*` or the one), group (`*` or the one; a rule may spell the group either
 *   way: `networking.k8s.io` is our `networking.svc.io`), version, resources (`*` is every
 *   resource without subresource, `*∕*` everything, `pods/*` pods and all its subresources, `pods/status`
 *   exactly that) and scope (`Namespaced`: a namespaced resource; `Cluster`: a cluster-scoped one,
 *   namespaces included).
 * - matchPolicy Equivalent: when no rule matches the request's own group/version/resource, the
 *   same objects served through another group or version (events.k8s.io/v1 Events and core
 *   Events, batch/v1beta1 and v1 CronJobs, ...) are tried, earlier rules first; the webhook is
 *   then called with the request converted to the version that matched.
 * - Never called for requests on the webhook configurations themselves (so a broken webhook can
 *   always be removed).
 *
 * Selectors are evaluated before the rules and their errors only surface for a hook whose rules
 * match, as established.
 */
import { canonicalGroup } from '../../../api/established-spelling.js';
import { labelSelectorFromObject } from '../../../api/labels.js';
import { notFound, StatusError } from '../../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../../api/types.js';
import { storageDefinition } from '../../../api/versions.js';
import type { AdmissionAttributes } from '../chain.js';

type Loose = Record<string, unknown>;

/** A rule with its operations, as stored (`RuleWithOperations`). */
export interface WebhookRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

/** The parts of a webhook (v1 shape, defaults filled) the matcher reads. */
export interface MatchableWebhook {
  name: string;
  rules?: WebhookRule[];
  matchPolicy?: string;
  namespaceSelector?: Loose;
  objectSelector?: Loose;
}

/** What a matching webhook is called with: the resource (and its definition) the rules matched. */
export interface WebhookInvocation {
  /** The definition whose group/version/resource matched (the request's own, or an equivalent). */
  def: ResourceDefinition;
  subresource: string;
}

/** The request as the rules see it. */
export interface RuleAttributes {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** Namespaced resource (a namespace object itself is cluster-scoped). */
  namespaced: boolean;
}

const EXEMPT_GROUP = 'admissionregistration.svc.io';
const EXEMPT_RESOURCES = new Set(['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']);

function starOr(list: readonly string[] | undefined, value: string, normalize: (s: string) => string = (s) => s): boolean {
  for (const x of list ?? []) if (x === '*' || normalize(x) === value) return true;
  return false;
}

/** One rule against one request (rules.Matcher.Matches). */
export function ruleMatches(rule: WebhookRule, a: RuleAttributes): boolean {
  if (!starOr(rule.operations, a.operation)) return false;
  if (!starOr(rule.apiGroups, a.group, canonicalGroup)) return false;
  if (!starOr(rule.apiVersions, a.version)) return false;
  const resourceHit = (rule.resources ?? []).some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
  if (!resourceHit) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced') return a.namespaced;
  if (scope === 'Cluster') return !a.namespaced;
  return true;
}

const isNamespaceResource = (def: ResourceDefinition): boolean => def.group === '' && def.plural === 'namespaces';

export function ruleAttributes(def: ResourceDefinition, a: Pick<AdmissionAttributes, 'operation' | 'subresource'>): RuleAttributes {
  return { operation: a.operation, group: def.group, version: def.version, resource: def.plural, subresource: a.subresource, namespaced: def.namespaced };
}

/** Is this request one no webhook is ever called for? */
export function exemptFromWebhooks(def: ResourceDefinition): boolean {
  return def.group === EXEMPT_GROUP && EXEMPT_RESOURCES.has(def.plural);
}

/** How the matcher reads namespaces and equivalent resources. */
export interface MatchContext {
  /** The namespace as an informer has it (undefined when it does not exist). */
  namespace(name: string): Promise<SvcObject | undefined>;
  /** Every served definition (for matchPolicy Equivalent). */
  definitions(): readonly ResourceDefinition[];
}

/** The other group/versions serving the same objects as `def` (EquivalentResourcesFor). */
export function equivalentDefinitions(def: ResourceDefinition, all: readonly ResourceDefinition[]): ResourceDefinition[] {
  const storage = storageDefinition(def);
  return all.filter((d) => d !== def && storageDefinition(d) === storage && !(d.group === def.group && d.version === def.version));
}

function selectorMatches(selector: Loose | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  return labelSelectorFromObject(selector ?? {}).matches(labels ?? {});
}

const isEmptySelector = (s: Loose | undefined): boolean =>
  !s || (Object.keys((s['matchLabels'] as Loose | undefined) ?? {}).length === 0 && ((s['matchExpressions'] as unknown[] | undefined) ?? []).length === 0);

/** namespaceSelector: [matches, error to raise if the rules match]. */
async function matchNamespace(h: MatchableWebhook, a: AdmissionAttributes, ctx: MatchContext): Promise<[boolean, StatusError | undefined]> {
  const nsResource = isNamespaceResource(a.def);
  if (!a.def.namespaced && !nsResource) return [true, undefined];
  if (isEmptySelector(h.namespaceSelector)) return [true, undefined];
  let labels: Record<string, string> | undefined;
  if (nsResource && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
    labels = a.object?.metadata.labels ?? {};
  } else {
    const name = nsResource ? a.name : a.namespace;
    const ns = await ctx.namespace(name);
    if (!ns) return [false, notFound({ group: '', resource: 'namespaces', name })];
    labels = ns.metadata.labels ?? {};
  }
  try {
    return [selectorMatches(h.namespaceSelector, labels), undefined];
  } catch (e) {
    return [false, e instanceof StatusError ? e : undefined];
  }
}

function matchObject(h: MatchableWebhook, a: AdmissionAttributes): [boolean, StatusError | undefined] {
  if (isEmptySelector(h.objectSelector)) return [true, undefined];
  try {
    const hit = (o: SvcObject | undefined) => o !== undefined && o.metadata !== undefined && selectorMatches(h.objectSelector, o.metadata.labels);
    return [hit(a.object) || hit(a.oldObject), undefined];
  } catch (e) {
    return [false, e instanceof StatusError ? e : undefined];
  }
}

/**
 * ShouldCallHook: the invocation when webhook `h` is to be called for this request, else
 * undefined; throws the selectors' error (a missing namespace's 404) for a hook whose rules match.
 */
export async function shouldCallHook(h: MatchableWebhook, a: AdmissionAttributes, ctx: MatchContext): Promise<WebhookInvocation | undefined> {
  const [nsHit, nsErr] = await matchNamespace(h, a, ctx);
  if (!nsHit && !nsErr) return undefined;
  const [objHit, objErr] = matchObject(h, a);
  if (!objHit && !objErr) return undefined;
  const rules = h.rules ?? [];
  let invocation: WebhookInvocation | undefined;
  const own = ruleAttributes(a.def, a);
  if (rules.some((r) => ruleMatches(r, own))) invocation = { def: a.def, subresource: a.subresource };
  if (!invocation && h.matchPolicy === 'Equivalent') {
    const equivalents = equivalentDefinitions(a.def, ctx.definitions());
    outer: for (const r of rules) {
      for (const d of equivalents) {
        if (ruleMatches(r, ruleAttributes(d, a))) {
          invocation = { def: d, subresource: a.subresource };
          break outer;
        }
      }
    }
  }
  if (!invocation) return undefined;
  if (nsErr) throw nsErr;
  if (objErr) throw objErr;
  return invocation;
}
