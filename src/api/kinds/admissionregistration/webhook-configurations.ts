/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration (admissionregistration.svc.io,
 * alias admissionregistration.k8s.io; cluster-scoped): the admission webhooks the API server calls
 * (src/apiserver/admission/webhook/). Stored as v1; v1beta1 is served with its own, older defaults
 * (failurePolicy Ignore, matchPolicy Exact, sideEffects Unknown, timeoutSeconds 30,
 * admissionReviewVersions [v1beta1]) and accepts the side-effect classes v1 no longer does
 * (Some, Unknown), as established.
 *
 * v1 defaults, as established: failurePolicy Fail, matchPolicy Equivalent, namespaceSelector and
 * objectSelector `{}` (everything), timeoutSeconds 10, reinvocationPolicy Never (mutating only),
 * every rule's scope `*`, a service reference's port 443. sideEffects and admissionReviewVersions
 * are required in v1. Validation follows the established rules and messages (webhook names fully
 * qualified and unique, rules' `*` exclusive, exactly one of url or service, https only, timeout
 * between 1 and 30 seconds).
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { duplicate, fieldForbidden, invalidEach, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../validation/names.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { servedVersion } from '../../versions.js';
import { asArray, asRecord, defineKind, setDefault } from '../define.js';
import { atomicList, bytes, int32, labelSelector, mapList, obj, objectSchema, str } from '../schema-dsl.js';
import { webhookConfigurationColumns } from '../columns/admission.js';

type Loose = Record<string, unknown>;

export const WEBHOOK_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] as const;
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SIDE_EFFECTS_V1 = ['None', 'NoneOnDryRun'];
const SIDE_EFFECTS_V1BETA1 = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
/** The AdmissionReview versions this server sends (preferred first). */
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;

const rule = () =>
  obj({ operations: atomicList(str()), apiGroups: atomicList(str()), apiVersions: atomicList(str()), resources: atomicList(str()), scope: str() });

const webhookSchema = (mutating: boolean) =>
  obj({
    name: str(),
    clientConfig: obj({ url: str(), service: obj({ namespace: str(), name: str(), path: str(), port: int32() }), caBundle: bytes() }),
    rules: atomicList(rule()),
    failurePolicy: str(),
    matchPolicy: str(),
    namespaceSelector: labelSelector(),
    objectSelector: labelSelector(),
    sideEffects: str(),
    timeoutSeconds: int32(),
    admissionReviewVersions: atomicList(str()),
    ...(mutating ? { reinvocationPolicy: str() } : {}),
  });

interface VersionRules {
  sideEffects: readonly string[];
  /** v1 requires sideEffects and admissionReviewVersions; v1beta1 defaults them. */
  requireChoices: boolean;
}

/** Fills the webhooks' defaults of one version (`v1beta1` older ones). */
function webhookDefaults(mutating: boolean, v1: boolean): (o: SvcObject) => void {
  return (o) => {
    for (const raw of asArray(o['webhooks'])) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue;
      const h = raw as Loose;
      setDefault(h, 'failurePolicy', v1 ? 'Fail' : 'Ignore');
      setDefault(h, 'matchPolicy', v1 ? 'Equivalent' : 'Exact');
      setDefault(h, 'namespaceSelector', {});
      setDefault(h, 'objectSelector', {});
      setDefault(h, 'timeoutSeconds', v1 ? 10 : 30);
      if (!v1) {
        setDefault(h, 'sideEffects', 'Unknown');
        setDefault(h, 'admissionReviewVersions', ['v1beta1']);
      }
      if (mutating) setDefault(h, 'reinvocationPolicy', 'Never');
      for (const r of asArray(h['rules'])) if (r && typeof r === 'object' && !Array.isArray(r)) setDefault(r as Loose, 'scope', '*');
      const service = asRecord(asRecord(h['clientConfig'])['service']);
      if (asRecord(h['clientConfig'])['service'] && typeof asRecord(h['clientConfig'])['service'] === 'object') setDefault(service, 'port', 443);
    }
  };
}

/** A list field that must be non-empty and, when it holds `*`, hold nothing else. */
function starList(field: string, v: unknown, what: string, errs: FieldError[]): string[] {
  const list = asArray(v);
  if (list.length === 0) {
    errs.push(required(field));
    return [];
  }
  const strings = list.filter((x): x is string => typeof x === 'string');
  if (strings.includes('*') && strings.length > 1) errs.push(invalidValue(field, v, `if '*' is present, must not specify other ${what}`));
  return strings;
}

function validateRule(r: Loose, p: string, errs: FieldError[]): void {
  const ops = starList(`${p}.operations`, r['operations'], 'operations', errs);
  ops.forEach((op, i) => {
    if (!(WEBHOOK_OPERATIONS as readonly string[]).includes(op)) errs.push(notSupported(`${p}.operations[${i}]`, op, WEBHOOK_OPERATIONS));
  });
  if (asArray(r['apiGroups']).length === 0) errs.push(required(`${p}.apiGroups`));
  else starList(`${p}.apiGroups`, r['apiGroups'], 'groups', errs);
  const versions = starList(`${p}.apiVersions`, r['apiVersions'], 'versions', errs);
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(`${p}.apiVersions[${i}]`));
  });
  const resources = starList(`${p}.resources`, r['resources'], 'resources', errs);
  // The established rule: `*` (or `*/*`) stands alone; `x/*` and `*/y` may not mix with `x/y`.
  const subs = new Map<string, Set<string>>();
  resources.forEach((res, i) => {
    if (res === '') {
      errs.push(required(`${p}.resources[${i}]`));
      return;
    }
    const [main, sub = ''] = res.split('/', 2) as [string, string?];
    if (main === '') errs.push(invalidValue(`${p}.resources[${i}]`, res, 'resource name may not be empty'));
    if (!subs.has(main)) subs.set(main, new Set());
    subs.get(main)!.add(sub);
  });
  if (resources.includes('*/*') && resources.length > 1) errs.push(invalidValue(`${p}.resources`, resources, "if '*/*' is present, must not specify other resources"));
  for (const [main, set] of subs) {
    if (set.has('*') && set.size > 1) errs.push(invalidValue(`${p}.resources`, resources, `if '${main}/*' is present, must not specify ${main}`));
  }
  if (r['scope'] !== undefined && (typeof r['scope'] !== 'string' || !SCOPES.includes(r['scope']))) errs.push(notSupported(`${p}.scope`, r['scope'], SCOPES));
}

/**
 * A webhook's clientConfig (established ValidateWebhookURL / ValidateWebhookService): exactly one of
 * url and service. `httpsOnly` false (AuditSinks, as established) lets a URL use any scheme.
 */
export function validateClientConfig(c: Loose, p: string, errs: FieldError[], httpsOnly = true): void {
  const hasUrl = typeof c['url'] === 'string' && c['url'] !== '';
  const service = c['service'];
  const hasService = service !== undefined && service !== null;
  if (hasUrl === hasService) {
    errs.push(required(p, 'exactly one of url or service is required'));
  }
  if (hasUrl) {
    const raw = c['url'] as string;
    let u: URL | undefined;
    try {
      u = new URL(raw);
    } catch {
      errs.push(invalidValue(`${p}.url`, raw, 'host must be specified'));
    }
    if (u) {
      if (httpsOnly && u.protocol !== 'https:') errs.push(invalidValue(`${p}.url`, raw, "'https' is the only allowed URL scheme"));
      if (!u.hostname) errs.push(invalidValue(`${p}.url`, raw, 'host must be specified'));
      if (u.username || u.password) errs.push(invalidValue(`${p}.url`, raw, 'user information is not permitted in the URL'));
      if (u.hash || raw.includes('#')) errs.push(invalidValue(`${p}.url`, raw, 'fragments are not permitted in the URL'));
      if (u.search || raw.includes('?')) errs.push(invalidValue(`${p}.url`, raw, 'query parameters are not permitted in the URL'));
    }
  }
  if (hasService) {
    const s = asRecord(service);
    const sp = `${p}.service`;
    if (typeof s['name'] !== 'string' || s['name'] === '') errs.push(required(`${sp}.name`, 'service name is required'));
    else errs.push(...invalidEach(`${sp}.name`, s['name'], isDNS1123Label(s['name'])));
    if (typeof s['namespace'] !== 'string' || s['namespace'] === '') errs.push(required(`${sp}.namespace`, 'service namespace is required'));
    else errs.push(...invalidEach(`${sp}.namespace`, s['namespace'], isDNS1123Label(s['namespace'])));
    const path = s['path'];
    if (path !== undefined && path !== null && path !== '') {
      if (typeof path !== 'string' || !path.startsWith('/')) errs.push(invalidValue(`${sp}.path`, path, "must start with a '/'"));
      else if (path.includes('?') || path.includes('#')) errs.push(invalidValue(`${sp}.path`, path, 'must be a path, without query or fragment'));
    }
    const port = s['port'];
    if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)) {
      errs.push(invalidValue(`${sp}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
    }
  }
  const ca = c['caBundle'];
  if (ca !== undefined && ca !== null && (typeof ca !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(ca))) {
    errs.push(invalidValue(`${p}.caBundle`, '<bytes>', 'must be base64-encoded PEM'));
  }
}

/** `at least three segments separated by dots`: the established IsFullyQualifiedName. */
function fullyQualifiedName(field: string, name: unknown, errs: FieldError[]): void {
  if (typeof name !== 'string' || name === '') {
    errs.push(required(field));
    return;
  }
  const sub = isDNS1123Subdomain(name);
  if (sub.length) {
    errs.push(...invalidEach(field, name, sub));
    return;
  }
  if (name.split('.').length < 3) errs.push(invalidValue(field, name, 'should be a domain with at least three segments separated by dots'));
}

/**
 * An update of an object stored before a rule held (through v1beta1) is held to the rules its old
 * object met, as established: v1's side-effect classes only when every old hook had one of them.
 */
function rulesForUpdate(rules: VersionRules, old: SvcObject | undefined): VersionRules {
  if (!old) return rules;
  const hooks = asArray(old['webhooks']).map(asRecord);
  const strictOld = hooks.every((h) => typeof h['sideEffects'] === 'string' && rules.sideEffects.includes(h['sideEffects']));
  return strictOld ? rules : { sideEffects: SIDE_EFFECTS_V1BETA1, requireChoices: rules.requireChoices };
}

function validateConfiguration(mutating: boolean, versionRules: VersionRules): (o: SvcObject, old?: SvcObject) => FieldError[] {
  return (o, old) => {
    const rules = rulesForUpdate(versionRules, old);
    const errs: FieldError[] = [];
    const webhooks = o['webhooks'];
    if (webhooks !== undefined && webhooks !== null && !Array.isArray(webhooks)) return [invalidValue('webhooks', webhooks, 'must be a list')];
    const names = new Set<string>();
    asArray(webhooks).forEach((raw, i) => {
      const p = `webhooks[${i}]`;
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        errs.push(invalidValue(p, raw, 'must be an object'));
        return;
      }
      const h = raw as Loose;
      fullyQualifiedName(`${p}.name`, h['name'], errs);
      if (typeof h['name'] === 'string') {
        if (names.has(h['name'])) errs.push(duplicate(`${p}.name`, h['name']));
        names.add(h['name']);
      }
      asArray(h['rules']).forEach((r, j) => validateRule(asRecord(r), `${p}.rules[${j}]`, errs));
      const cc = h['clientConfig'];
      if (cc === undefined || cc === null) errs.push(required(`${p}.clientConfig`, 'exactly one of url or service is required'));
      else validateClientConfig(asRecord(cc), `${p}.clientConfig`, errs);
      const choice = (field: string, supported: readonly string[]) => {
        const v = h[field];
        if (v === undefined || v === null) return;
        if (typeof v !== 'string' || !supported.includes(v)) errs.push(notSupported(`${p}.${field}`, v, supported));
      };
      choice('failurePolicy', FAILURE_POLICIES);
      choice('matchPolicy', MATCH_POLICIES);
      if (mutating) choice('reinvocationPolicy', REINVOCATION_POLICIES);
      const se = h['sideEffects'];
      if (se === undefined || se === null || se === '') {
        if (rules.requireChoices) errs.push(notSupported(`${p}.sideEffects`, '', rules.sideEffects));
      } else choice('sideEffects', rules.sideEffects);
      const timeout = h['timeoutSeconds'];
      if (timeout !== undefined && timeout !== null && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > 30)) {
        errs.push(invalidValue(`${p}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
      }
      const versions = asArray(h['admissionReviewVersions']);
      if (versions.length === 0) {
        if (rules.requireChoices || h['admissionReviewVersions'] !== undefined) {
          errs.push(required(`${p}.admissionReviewVersions`, `must specify one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`));
        }
      } else {
        const seen = new Set<string>();
        versions.forEach((v, j) => {
          if (typeof v !== 'string' || v === '') errs.push(required(`${p}.admissionReviewVersions[${j}]`));
          else {
            errs.push(...invalidEach(`${p}.admissionReviewVersions[${j}]`, v, isDNS1123Label(v)));
            if (seen.has(v)) errs.push(duplicate(`${p}.admissionReviewVersions[${j}]`, v));
            seen.add(v);
          }
        });
        if (!versions.some((v) => typeof v === 'string' && (ADMISSION_REVIEW_VERSIONS as readonly string[]).includes(v))) {
          errs.push(invalidValue(`${p}.admissionReviewVersions`, versions, `must include at least one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`));
        }
      }
      for (const sel of ['namespaceSelector', 'objectSelector']) {
        if (h[sel] !== undefined && h[sel] !== null) errs.push(...validateLabelSelectorSpec(h[sel], `${p}.${sel}`));
      }
      if (!mutating && h['reinvocationPolicy'] !== undefined) errs.push(fieldForbidden(`${p}.reinvocationPolicy`, 'validating webhooks are not reinvoked'));
    });
    return errs;
  };
}

function configurationKind(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration') {
  const mutating = kind === 'MutatingWebhookConfiguration';
  const storage = defineKind({
    group: 'admissionregistration.svc.io',
    version: 'v1',
    kind,
    plural: `${kind.toLowerCase()}s`,
    namespaced: false,
    categories: ['api-extensions'],
    tableColumns: webhookConfigurationColumns,
    schema: objectSchema({ webhooks: mapList(['name'], webhookSchema(mutating)) }),
    defaults: webhookDefaults(mutating, true),
    validate: validateConfiguration(mutating, { sideEffects: SIDE_EFFECTS_V1, requireChoices: true }),
  });
  const v1beta1 = servedVersion(storage, {
    version: 'v1beta1',
    defaults: webhookDefaults(mutating, false),
    validate: validateConfiguration(mutating, { sideEffects: SIDE_EFFECTS_V1BETA1, requireChoices: false }),
  });
  return { storage, v1beta1 };
}

const mutating = configurationKind('MutatingWebhookConfiguration');
const validating = configurationKind('ValidatingWebhookConfiguration');

export const mutatingWebhookConfigurationDefinition = mutating.storage;
export const mutatingWebhookConfigurationV1beta1Definition = mutating.v1beta1;
export const validatingWebhookConfigurationDefinition = validating.storage;
export const validatingWebhookConfigurationV1beta1Definition = validating.v1beta1;
