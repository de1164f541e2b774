/**
 * PodPreset (settings.svc.io/v1alpha1, alias settings.k8s.io; namespaced): what the PodPreset
 * admission plugin (src/apiserver/admission/pod-preset.ts) merges into the pods of its namespace
 * whose labels its selector matches, at their creation. An alpha group/version, so served only with
 * `--runtime-config=settings.k8s.io/v1alpha1=true`.
 *
 *     spec:
 *       selector: {matchLabels: {role: frontend}}   # empty: every pod of the namespace
 *       env: [{name: DB_PORT, value: "6379"}]        # into every container and init container
 *       envFrom: [{configMapRef: {name: etcd-env}}]
 *       volumeMounts: [{name: cache, mountPath: /cache}]
 *       volumes: [{name: cache, emptyDir: {}}]       # into the pod
 *
 * Validation is the established ValidatePodPresetSpec: the selector; at least one of volumes, env,
 * envFrom, volumeMounts; volume names (DNS labels, unique); env names; each mount names one of the
 * preset's own volumes at a unique path. Defaults: the pod volumes' own (a projected volume's
 * defaultMode), so a preset's volume compares equal to the same volume in a pod.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { duplicate, invalidEach, invalidValue, notFoundValue, required } from '../../validation/field-errors.js';
import { isDNS1123Label, isEnvVarName } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { atomicList, freeform, labelSelector, mapList, obj, objectSchema } from '../schema-dsl.js';
import { envVarSchema, volumeMountSchema, volumeSchema } from '../core/pod-spec.js';
import { defaultProjectedVolume } from '../core/projected-volumes.js';

export const SETTINGS_GROUP = 'settings.svc.io';
export const SETTINGS_VERSION = 'v1alpha1';

export const podPresetDefinition = defineKind({
  group: SETTINGS_GROUP,
  version: SETTINGS_VERSION,
  kind: 'PodPreset',
  plural: 'podpresets',
  namespaced: true,
  schema: objectSchema({
    spec: obj({
      selector: labelSelector(),
      env: atomicList(envVarSchema()),
      envFrom: atomicList(freeform()),
      volumes: mapList(['name'], volumeSchema()),
      volumeMounts: atomicList(volumeMountSchema()),
    }),
  }),
  defaults(o: SvcObject): void {
    for (const v of asArray(asRecord(o.spec)['volumes'])) {
      const projected = asRecord(v)['projected'];
      if (projected && typeof projected === 'object') defaultProjectedVolume(projected as Record<string, unknown>);
    }
  },
  validate: validatePodPreset,
});

const given = (v: unknown): boolean => v !== undefined && v !== null;

function validatePodPreset(o: SvcObject): FieldError[] {
  const spec = asRecord(o.spec);
  const errs: FieldError[] = [];
  if (given(spec['selector'])) errs.push(...validateLabelSelectorSpec(spec['selector'], 'spec.selector'));
  if (!given(spec['env']) && !given(spec['envFrom']) && !given(spec['volumeMounts']) && !given(spec['volumes'])) {
    // The established field path names all four.
    errs.push(required('spec.volumes.env.envFrom.volumeMounts', 'must specify at least one'));
  }
  const volumes = new Set<string>();
  asArray(spec['volumes']).forEach((raw, i) => {
    const name = asRecord(raw)['name'];
    const vp = `spec.volumes[${i}].name`;
    if (typeof name !== 'string' || name === '') errs.push(required(vp));
    else {
      errs.push(...invalidEach(vp, name, isDNS1123Label(name)));
      if (volumes.has(name)) errs.push(duplicate(vp, name));
      volumes.add(name);
    }
  });
  asArray(spec['env']).forEach((raw, i) => {
    const name = asRecord(raw)['name'];
    if (typeof name !== 'string' || name === '') errs.push(required(`spec.env[${i}].name`));
    else errs.push(...invalidEach(`spec.env[${i}].name`, name, isEnvVarName(name)));
  });
  const paths = new Set<string>();
  asArray(spec['volumeMounts']).forEach((raw, i) => {
    const m = asRecord(raw);
    const mp = `spec.volumeMounts[${i}]`;
    const name = m['name'];
    if (typeof name !== 'string' || name === '') errs.push(required(`${mp}.name`));
    else if (!volumes.has(name)) errs.push(notFoundValue(`${mp}.name`, name));
    const path = m['mountPath'];
    if (typeof path !== 'string' || path === '') errs.push(required(`${mp}.mountPath`));
    else if (paths.has(path)) errs.push(invalidValue(`${mp}.mountPath`, path, 'must be unique'));
    else paths.add(path);
  });
  return errs;
}
