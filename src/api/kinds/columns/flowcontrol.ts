/**
 * Table columns of the flowcontrol kinds (kubectl get flowschemas / prioritylevelconfigurations),
 * as the established printers lay them out: a schema's MissingPL cell is its Dangling condition's
 * status (`?` before the server has set it); a level's numbers are `<none>` for an Exempt level.
 */
import type { SvcObject, TableColumns } from '../../types.js';
import { asRecord, asArray } from '../define.js';
import { AGE_COLUMN, age, column, NAME_COLUMN, name } from './cells.js';

export const flowSchemaColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('PriorityLevel', 'string', '`name` is the name of the priority level configuration being referenced Required.'),
    column('MatchingPrecedence', 'string', '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.'),
    column('DistinguisherMethod', 'string', '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.'),
    AGE_COLUMN,
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  cells(o, now) {
    const spec = asRecord(o['spec']);
    const dm = spec['distinguisherMethod'];
    const dangling = asArray(asRecord(o['status'])['conditions']).map(asRecord).find((c) => c['type'] === 'Dangling');
    return [
      name(o),
      String(asRecord(spec['priorityLevelConfiguration'])['name'] ?? ''),
      typeof spec['matchingPrecedence'] === 'number' ? spec['matchingPrecedence'] : 0,
      dm ? String(asRecord(dm)['type'] ?? '') : '<none>',
      age(o, now),
      dangling ? String(dangling['status'] ?? '') : '?',
    ];
  },
  // The established printer lists schemas in matching order: precedence, then name.
  rowOrder(a, b) {
    const p = (o: SvcObject) => Number(asRecord(o['spec'])['matchingPrecedence'] ?? 0);
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return p(a) - p(b) || (na < nb ? -1 : na > nb ? 1 : 0);
  },
};

export const priorityLevelColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.'),
    column('AssuredConcurrencyShares', 'string', '`assuredConcurrencyShares` (ACS) configures the execution limit, which is a limit on the number of requests of this priority level that may be exeucting at a given time.'),
    column('Queues', 'string', '`queues` is the number of queues for this priority level.'),
    column('HandSize', 'string', '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.'),
    column('QueueLengthLimit', 'string', '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const spec = asRecord(o['spec']);
    const limited = spec['limited'];
    let acs: number | string = '<none>';
    let queues: number | string = '<none>';
    let handSize: number | string = '<none>';
    let queueLengthLimit: number | string = '<none>';
    if (limited) {
      const l = asRecord(limited);
      acs = typeof l['assuredConcurrencyShares'] === 'number' ? l['assuredConcurrencyShares'] : 0;
      const q = asRecord(l['limitResponse'])['queuing'];
      if (q) {
        const r = asRecord(q);
        queues = Number(r['queues'] ?? 0);
        handSize = Number(r['handSize'] ?? 0);
        queueLengthLimit = Number(r['queueLengthLimit'] ?? 0);
      }
    }
    return [name(o), String(spec['type'] ?? ''), acs, queues, handSize, queueLengthLimit, age(o, now)];
  },
};
