/**
 * PriorityLevelConfigurations (flowcontrol.apiserver.svc.io/v1beta1, alias
 * flowcontrol.apiserver.k8s.io; cluster-scoped): one priority level of API Priority and Fairness
 * (src/apiserver/flowcontrol/). `Exempt` levels are never limited; a `Limited` level gets a share
 * of the server's concurrency (`assuredConcurrencyShares`) and either rejects (`Reject`) or queues
 * (`Queue`: `queues`, `handSize`, `queueLengthLimit`) what it cannot run at once.
 *
 * Defaults and validation are the established ones (v1beta1): assuredConcurrencyShares 30, queues
 * 64, handSize 8, queueLengthLimit 50; the level named `exempt` and only it is of type Exempt; the
 * hand a flow is dealt must fit the 60 bits of its hash.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { fieldForbidden, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { asRecord, defineKind, peek } from '../define.js';
import { conditions, int32, obj, objectSchema, str } from '../schema-dsl.js';
import { priorityLevelColumns } from '../columns/flowcontrol.js';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.svc.io';
export const FLOWCONTROL_VERSION = 'v1beta1';
export const PRIORITY_LEVEL_EXEMPT = 'exempt';
export const PRIORITY_LEVEL_CATCH_ALL = 'catch-all';
/** The bits of a flow's hash that shuffle sharding may spend on dealing its hand. */
export const MAX_HASH_BITS = 60;

/** The established RequiredEntropyBits: ceil(log2(deckSize) * handSize). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

export const priorityLevelConfigurationDefinition = defineKind({
  group: FLOWCONTROL_GROUP,
  version: FLOWCONTROL_VERSION,
  kind: 'PriorityLevelConfiguration',
  plural: 'prioritylevelconfigurations',
  namespaced: false,
  subresources: ['status'],
  tableColumns: priorityLevelColumns,
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      type: str(),
      limited: obj({
        assuredConcurrencyShares: int32(),
        limitResponse: obj({ type: str(), queuing: obj({ queues: int32(), handSize: int32(), queueLengthLimit: int32() }) }),
      }),
    }),
    status: obj({ conditions: conditions() }),
  }),
  defaults(o: SvcObject): void {
    const limited = peek(peek(o, 'spec'), 'limited');
    if (!limited) return;
    if (!limited['assuredConcurrencyShares']) limited['assuredConcurrencyShares'] = 30;
    const queuing = peek(peek(limited, 'limitResponse'), 'queuing');
    if (!queuing) return;
    for (const [k, v] of [['handSize', 8], ['queues', 64], ['queueLengthLimit', 50]] as const) {
      if (!queuing[k]) queuing[k] = v;
    }
  },
  validate: validatePriorityLevel,
});

function validatePriorityLevel(o: SvcObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(o['spec']);
  const type = spec['type'];
  const exempt = o.metadata.name === PRIORITY_LEVEL_EXEMPT;
  if (type !== 'Exempt' && type !== 'Limited') {
    errs.push(type === undefined || type === '' ? required('spec.type') : notSupported('spec.type', type, ['Exempt', 'Limited']));
    return errs;
  }
  if ((type === 'Exempt') !== exempt) errs.push(invalidValue('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = spec['limited'];
  if (type === 'Exempt') {
    if (limited !== undefined && limited !== null) errs.push(fieldForbidden('spec.limited', 'must be nil if the type is not Limited'));
    return errs;
  }
  if (limited === undefined || limited === null) {
    errs.push(required('spec.limited', 'must not be empty when type is Limited'));
    return errs;
  }
  const l = asRecord(limited);
  const acs = l['assuredConcurrencyShares'];
  if (typeof acs !== 'number' || acs <= 0) errs.push(invalidValue('spec.limited.assuredConcurrencyShares', acs ?? 0, 'must be positive'));
  const response = asRecord(l['limitResponse']);
  const rtype = response['type'];
  const queuing = response['queuing'];
  const at = 'spec.limited.limitResponse';
  if (rtype === 'Reject') {
    if (queuing !== undefined && queuing !== null) errs.push(fieldForbidden(`${at}.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (rtype === 'Queue') {
    if (queuing === undefined || queuing === null) errs.push(required(`${at}.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
    else errs.push(...validateQueuing(`${at}.queuing`, asRecord(queuing)));
  } else {
    errs.push(rtype === undefined || rtype === '' ? required(`${at}.type`) : notSupported(`${at}.type`, rtype, ['Queue', 'Reject']));
  }
  return errs;
}

function validateQueuing(at: string, q: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const n = (k: string): number => (typeof q[k] === 'number' ? (q[k] as number) : 0);
  for (const k of ['queueLengthLimit', 'queues', 'handSize']) if (n(k) <= 0) errs.push(invalidValue(`${at}.${k}`, n(k), 'must be positive'));
  if (errs.length) return errs;
  if (n('handSize') > n('queues')) errs.push(invalidValue(`${at}.handSize`, n('handSize'), `should not be greater than queues (${n('queues')})`));
  else if (requiredEntropyBits(n('queues'), n('handSize')) > MAX_HASH_BITS) {
    errs.push(invalidValue(at, q, `required entropy bits of deckSize ${n('queues')} and handSize ${n('handSize')} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}
