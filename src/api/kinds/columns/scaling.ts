/**
 * Table columns of PodDisruptionBudgets, HorizontalPodAutoscalers and EndpointSlices, as the
 * established server's printers give them (`kubectl get pdb,hpa,endpointslices`). The cells read
 * the storage version's fields (policy/v1, autoscaling/v2, discovery v1); other versions convert
 * first (src/api/versions.ts).
 */
import type { TableColumns } from '../../types.js';
import { asArray, asRecord } from '../define.js';
import { AGE_COLUMN, age, at, column, NAME_COLUMN, name, text } from './cells.js';

const orNA = (v: unknown): string => (v === undefined || v === null ? 'N/A' : String(v));

export const podDisruptionBudgetColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    AGE_COLUMN,
  ],
  cells: (o, now) => [name(o), orNA(at(o, 'spec', 'minAvailable')), orNA(at(o, 'spec', 'maxUnavailable')), Number(at(o, 'status', 'disruptionsAllowed') ?? 0), age(o, now)],
};

/** The current value of a metric spec from the status entry of the same type and name ('<unknown>' when none). */
function currentOf(metric: Record<string, unknown>, statuses: Record<string, unknown>[]): Record<string, unknown> | undefined {
  const type = text(metric['type']);
  const source = type === 'ContainerResource' ? 'containerResource' : type.toLowerCase();
  const want = asRecord(metric[source]);
  const match = statuses.find((s) => {
    if (s['type'] !== type) return false;
    const got = asRecord(s[source]);
    return type === 'Resource' || type === 'ContainerResource' ? got['name'] === want['name'] : at(got, 'metric', 'name') === at(want, 'metric', 'name');
  });
  return match ? asRecord(asRecord(match[source])['current']) : undefined;
}

/** `cpu: 40%/80%`, `memory: <unknown>/500Mi`, `10/20 (avg)`: the established TARGETS cell. */
function formatTargets(spec: unknown, status: unknown): string {
  const metrics = asArray(asRecord(spec)['metrics']).map(asRecord);
  if (metrics.length === 0) return '<none>';
  const statuses = asArray(asRecord(status)['currentMetrics']).map(asRecord);
  const parts = metrics.map((m) => {
    const type = text(m['type']);
    const source = type === 'ContainerResource' ? 'containerResource' : type.toLowerCase();
    const target = asRecord(asRecord(m[source])['target']);
    const current = currentOf(m, statuses);
    if (type === 'Resource' || type === 'ContainerResource') {
      const resource = text(asRecord(m[source])['name']);
      if (target['averageUtilization'] !== undefined) {
        const now = current?.['averageUtilization'];
        return `${resource}: ${now === undefined ? '<unknown>' : `${String(now)}%`}/${String(target['averageUtilization'])}%`;
      }
      return `${resource}: ${current?.['averageValue'] === undefined ? '<unknown>' : text(current['averageValue'])}/${text(target['averageValue'])}`;
    }
    if (target['averageValue'] !== undefined) return `${current?.['averageValue'] === undefined ? '<unknown>' : text(current['averageValue'])}/${text(target['averageValue'])} (avg)`;
    return `${current?.['value'] === undefined ? '<unknown>' : text(current['value'])}/${text(target['value'])}`;
  });
  return parts.length > 2 ? `${parts.slice(0, 2).join(', ')} + ${parts.length - 2} more...` : parts.join(', ');
}

export const horizontalPodAutoscalerColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Reference', 'string', 'The reference to the target of the autoscaling.'),
    column('Targets', 'string', 'The targets of the metrics and their current values.'),
    column('MinPods', 'string', 'The lower limit for the number of pods.'),
    column('MaxPods', 'integer', 'The upper limit for the number of pods.'),
    column('Replicas', 'integer', 'The current number of pods.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const ref = asRecord(at(o, 'spec', 'scaleTargetRef'));
    const min = at(o, 'spec', 'minReplicas');
    return [
      name(o),
      `${text(ref['kind'])}/${text(ref['name'])}`,
      formatTargets(o['spec'], o['status']),
      min === undefined || min === null ? '<unset>' : String(min),
      Number(at(o, 'spec', 'maxReplicas') ?? 0),
      Number(at(o, 'status', 'currentReplicas') ?? 0),
      age(o, now),
    ];
  },
};

export const endpointSliceColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('AddressType', 'string', 'The type of addresses in this slice.'),
    column('Ports', 'string', 'The ports of the endpoints in this slice.'),
    column('Endpoints', 'string', 'The addresses of the endpoints in this slice.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const ports = asArray(o['ports']).map((p) => at(p, 'port')).filter((p) => p !== undefined && p !== null).map(String);
    const addresses = asArray(o['endpoints']).flatMap((e) => asArray(asRecord(e)['addresses']).map(text));
    const shown = addresses.length > 3 ? `${addresses.slice(0, 3).join(',')} + ${addresses.length - 3} more...` : addresses.join(',');
    return [name(o), text(o['addressType']), ports.length ? ports.join(',') : '<unset>', shown || '<unset>', age(o, now)];
  },
};
