/** StatefulSets (apps/v1): ordered pods with stable identities and claims. +status, +scale. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { fieldForbidden, invalidValue, nonNegative, oneOf } from '../../validation/field-errors.js';
import { asArray, asRecord, defineKind, section, setDefault } from '../define.js';
import { atomicList, int32, labelSelector, obj, objectMeta, objectSchema, openObj, str } from '../schema-dsl.js';
import { defaultPodTemplate, podTemplateSchema, validatePodTemplate } from '../core/pod-spec.js';
import { replicaStatusSchema, validateSelectorAndTemplate } from '../workload.js';
import { canonicalJson } from '../../json-walk.js';
import { statefulSetColumns } from '../columns/workloads.js';

export const statefulSetDefinition = defineKind({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
  tableColumns: statefulSetColumns,
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'spec.selector' },
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      replicas: int32(),
      selector: labelSelector(),
      template: podTemplateSchema(),
      volumeClaimTemplates: atomicList(openObj({ apiVersion: str(), kind: str(), metadata: objectMeta() })),
      serviceName: str(),
      podManagementPolicy: str(),
      updateStrategy: obj({ type: str(), rollingUpdate: obj({ partition: int32() }) }),
      revisionHistoryLimit: int32(),
    }),
    status: openObj({ ...replicaStatusSchema().properties, currentRevision: str(), updateRevision: str() }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'replicas', 1);
    setDefault(spec, 'podManagementPolicy', 'OrderedReady');
    setDefault(spec, 'updateStrategy', {});
    const us = asRecord(spec['updateStrategy']);
    setDefault(us, 'type', 'RollingUpdate');
    if (us['type'] === 'RollingUpdate') {
      setDefault(us, 'rollingUpdate', {});
      setDefault(asRecord(us['rollingUpdate']), 'partition', 0);
    }
    setDefault(spec, 'revisionHistoryLimit', 10);
    defaultPodTemplate(spec['template']);
    for (const t of asArray(spec['volumeClaimTemplates'])) {
      const s = asRecord(asRecord(t)['spec']);
      if (asRecord(t)['spec'] !== undefined) setDefault(s, 'volumeMode', 'Filesystem');
    }
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = nonNegative('spec.replicas', spec['replicas']);
    errs.push(...oneOf('spec.podManagementPolicy', spec['podManagementPolicy'], ['OrderedReady', 'Parallel']));
    const us = asRecord(spec['updateStrategy']);
    errs.push(...oneOf('spec.updateStrategy.type', us['type'], ['OnDelete', 'RollingUpdate']));
    if (us['type'] === 'OnDelete' && us['rollingUpdate'] !== undefined) {
      errs.push(fieldForbidden('spec.updateStrategy.rollingUpdate', "only allowed for updateStrategy 'RollingUpdate'"));
    }
    errs.push(...nonNegative('spec.updateStrategy.rollingUpdate.partition', asRecord(us['rollingUpdate'])['partition']));
    errs.push(...validateSelectorAndTemplate(spec, 'statefulset'));
    errs.push(...validatePodTemplate(spec['template'], 'spec.template', { restartPolicies: ['Always'] }));
    errs.push(...nonNegative('spec.revisionHistoryLimit', spec['revisionHistoryLimit']));
    if (old) {
      // Only replicas, template and updateStrategy may change on a statefulset.
      const strip = (s: unknown) => {
        const c = { ...asRecord(s) };
        delete c['replicas'];
        delete c['template'];
        delete c['updateStrategy'];
        return canonicalJson(c);
      };
      if (strip(spec) !== strip(old.spec)) {
        errs.push(fieldForbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden"));
      }
    }
    if (typeof spec['serviceName'] !== 'string' && spec['serviceName'] !== undefined) errs.push(invalidValue('spec.serviceName', spec['serviceName'], 'must be a string'));
    return errs;
  },
});
