/**
 * Subresources: `status` (the status half of an object), `scale` (an autoscaling/v1 Scale view of
 * replicas), `binding` (assigns a pod to a node, once) and a namespace's `finalize`.
 */
import { badRequest, conflict, invalid, methodNotAllowed, notFound, successStatus } from '../../api/status.js';
import { isDNS1123Subdomain } from '../../api/validation/names.js';
import type { ScaleMapping, SvcObject } from '../../api/types.js';
import { getPath, labelSelectorFromMap, labelSelectorFromObject, setPath } from '../../api/index.js';
import { readRequestBytes, readRequestValue, writeJson } from '../http.js';
import { prepareStatusUpdate, timestamp } from '../object-rules.js';
import { isDryRun, type RequestScope } from '../scope.js';
import { parsePatch } from './patch.js';
import { guaranteedUpdate, readObjectBody } from './write.js';
import { updateOwnership } from '../apply/managed-fields.js';
import { OBJECT_MEDIA_TYPES } from '../../codec/body.js';
import { asObject } from '../object-rules.js';

/** `status`, and a CertificateSigningRequest's `approval` (the status half too; its hook keeps only the conditions). */
export async function handleStatus(s: RequestScope): Promise<void> {
  switch (s.info.verb) {
    case 'get': {
      const view = await s.store.get(s.info.namespace, s.info.name, s.query.get('resourceVersion') ?? undefined);
      writeJson(s.res, 200, view.json);
      return;
    }
    case 'update': {
      const dryRun = isDryRun(s.query);
      const body = await readObjectBody(s);
      checkName(s, body);
      const out = await guaranteedUpdate(
        s,
        (current) => {
          const next = prepareStatusUpdate(body, current);
          if (body.metadata.resourceVersion) next.metadata.resourceVersion = body.metadata.resourceVersion;
          return next;
        },
        { dryRun, subresource: s.info.subresource, ownership: updateOwnership(s, s.info.subresource) },
      );
      writeJson(s.res, 200, out.view.json);
      return;
    }
    default:
      throw methodNotAllowed(`${s.info.verb} is not supported on the ${s.info.subresource} subresource`);
  }
}

function checkName(s: RequestScope, body: SvcObject): void {
  if (body.metadata.name !== undefined && body.metadata.name !== s.info.name) {
    throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${s.info.name})`);
  }
}

/** autoscaling/v1 Scale for an object, per the kind's scale mapping. */
export function scaleOf(obj: SvcObject, mapping: ScaleMapping): SvcObject {
  const m = obj.metadata;
  const replicas = Number(getPath(obj, mapping.specReplicasPath) ?? 0);
  const statusReplicas = Number(getPath(obj, mapping.statusReplicasPath) ?? 0);
  let selector = '';
  if (mapping.labelSelectorPath) {
    const raw = getPath(obj, mapping.labelSelectorPath);
    if (raw && typeof raw === 'object') {
      const r = raw as Record<string, unknown>;
      selector = ('matchLabels' in r || 'matchExpressions' in r ? labelSelectorFromObject(r) : labelSelectorFromMap(r as Record<string, string>)).toString();
    } else if (typeof raw === 'string') {
      // Custom resources keep the selector already serialised (e.g. status.selector).
      selector = raw;
    }
  }
  const scale: SvcObject = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas },
    status: { replicas: statusReplicas, ...(selector ? { selector } : {}) },
  };
  return scale;
}

export async function handleScale(s: RequestScope): Promise<void> {
  const mapping = s.def.scale;
  if (!mapping) throw notFound({ group: s.def.group, resource: `${s.def.plural}/scale`, name: s.info.name });
  if (s.info.verb === 'get') {
    const view = await s.store.get(s.info.namespace, s.info.name, s.query.get('resourceVersion') ?? undefined);
    writeJson(s.res, 200, scaleOf(view.object, mapping));
    return;
  }
  if (s.info.verb !== 'update' && s.info.verb !== 'patch') throw methodNotAllowed(`${s.info.verb} is not supported on the scale subresource`);
  const dryRun = isDryRun(s.query);
  let desired: (current: SvcObject) => SvcObject;
  if (s.info.verb === 'update') {
    const body = asObject(await readRequestValue(s.req, OBJECT_MEDIA_TYPES, s.services.config.inputLimits), 'Scale');
    if (body.kind !== undefined && body.kind !== 'Scale') throw badRequest(`the kind in the data (${String(body.kind)}) must be Scale`);
    desired = () => body;
  } else {
    const apply = parsePatch(s.req.headers['content-type'], await readRequestBytes(s.req, s.services.config.inputLimits.maxRequestBodyBytes), s.services.config.inputLimits, { schema: undefined, strategic: true });
    desired = (current) => apply(scaleOf(current, mapping));
  }
  const out = await guaranteedUpdate(
    s,
    (_frozen, draft) => {
      const current = draft();
      const scale = desired(current);
      const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
        throw badRequest('spec.replicas: Invalid value: must be a non-negative integer');
      }
      const pinned = scale.metadata.resourceVersion;
      if (pinned && pinned !== current.metadata.resourceVersion) {
        throw conflict({ group: s.def.group, resource: s.def.plural, name: s.info.name }, 'the object has been modified; please apply your changes to the latest version and try again');
      }
      const before = getPath(current, mapping.specReplicasPath);
      setPath(current, mapping.specReplicasPath, replicas);
      if (s.def.tracksGeneration && replicas !== before) current.metadata.generation = (current.metadata.generation ?? 1) + 1;
      return current;
    },
    { dryRun, subresource: 'scale' },
  );
  writeJson(s.res, 200, scaleOf(out.view.object, mapping));
}

/** POST pods/<name>/binding: sets spec.nodeName once and marks the pod scheduled. */
export async function handleBinding(s: RequestScope): Promise<void> {
  if (s.info.verb !== 'create') throw methodNotAllowed('only POST is supported on the binding subresource');
  const dryRun = isDryRun(s.query);
  const body = asObject(await readRequestValue(s.req, OBJECT_MEDIA_TYPES, s.services.config.inputLimits), 'Binding');
  if (body.kind !== undefined && body.kind !== 'Binding') throw badRequest(`the kind in the data (${String(body.kind)}) must be Binding`);
  if (body.metadata.name !== undefined && body.metadata.name !== s.info.name) {
    throw badRequest(`the name of the binding (${body.metadata.name}) does not match the pod (${s.info.name})`);
  }
  const target = body['target'] as { kind?: string; name?: string } | undefined;
  if (!target?.name) throw badRequest('target.name: Required value: the node to bind to');
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') throw badRequest(`target.kind: must be Node, not ${target.kind}`);
  if (typeof target.name !== 'string') throw badRequest('target.name: Invalid value: must be a string');
  const nameErrors = isDNS1123Subdomain(target.name);
  if (nameErrors.length) throw invalid('Binding', s.info.name, '', [{ type: 'FieldValueInvalid', field: 'target.name', message: `Invalid value: ${JSON.stringify(target.name)}: ${nameErrors.join('; ')}` }]);
  const ref = { group: '', resource: 'pods', name: s.info.name };
  await guaranteedUpdate(
    s,
    (_frozen, draft) => {
      const current = draft();
      if (current.metadata.deletionTimestamp) throw conflict(ref, 'pod is being deleted, cannot be assigned to a host');
      const spec = (current.spec ?? {}) as { nodeName?: string };
      if (spec.nodeName) throw conflict(ref, `pod ${s.info.name} is already assigned to node "${spec.nodeName}"`);
      if (body.metadata.uid && body.metadata.uid !== current.metadata.uid) throw conflict(ref, 'the UID in the binding does not match the pod');
      spec.nodeName = target.name;
      current.spec = spec;
      const status = (current.status ?? {}) as { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
      const conditions = (status.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
      conditions.push({ type: 'PodScheduled', status: 'True', lastTransitionTime: timestamp(s.services.now()) });
      status.conditions = conditions;
      current.status = status;
      return current;
    },
    // As established, binding writes the pod without validating it again: it changes nothing but
    // spec.nodeName (checked above, and only when unset) and the PodScheduled condition.
    { dryRun, subresource: 'binding', revalidate: false },
  );
  writeJson(s.res, 201, successStatus(undefined, 201));
}

/** PUT namespaces/<name>/finalize: the only way to change spec.finalizers. */
export async function handleFinalize(s: RequestScope): Promise<void> {
  if (s.info.verb !== 'update') throw methodNotAllowed('only PUT is supported on the finalize subresource');
  const dryRun = isDryRun(s.query);
  const body = await readObjectBody(s);
  checkName(s, body);
  const finalizers = (body.spec as { finalizers?: unknown } | undefined)?.finalizers ?? [];
  if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) throw badRequest('spec.finalizers must be a list of strings');
  const out = await guaranteedUpdate(
    s,
    (_frozen, draft) => {
      const current = draft();
      current.spec = { ...((current.spec as object | undefined) ?? {}), finalizers: [...new Set(finalizers as string[])] };
      if (body.metadata.resourceVersion) current.metadata.resourceVersion = body.metadata.resourceVersion;
      return current;
    },
    { dryRun, subresource: 'finalize' },
  );
  writeJson(s.res, 200, out.view.json);
}
