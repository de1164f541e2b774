/**
 * Table columns of the workload kinds (apps and batch), as the established server prints them.
 * Each ends with the wide-only Containers, Images and Selector columns.
 */
import type { TableColumns } from '../../types.js';
import { asArray } from '../define.js';
import {
  AGE_COLUMN, age, at, column, CONTAINERS_COLUMN, containerCells, count, formatLabels, formatSelector, humanDuration, IMAGES_COLUMN,
  NAME_COLUMN, name, SELECTOR_COLUMN, since, templateCells, text,
} from './cells.js';

const TEMPLATE_COLUMNS = [CONTAINERS_COLUMN, IMAGES_COLUMN, SELECTOR_COLUMN];

export const deploymentColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of ready pods out of the desired replicas.'),
    column('Up-to-date', 'integer', 'Total number of non-terminated pods that have the desired template spec.'),
    column('Available', 'integer', 'Total number of available pods (ready for at least minReadySeconds).'),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
  ],
  cells: (d, now) => [
    name(d), `${count(at(d, 'status', 'readyReplicas'))}/${count(at(d, 'spec', 'replicas'))}`, count(at(d, 'status', 'updatedReplicas')),
    count(at(d, 'status', 'availableReplicas')), age(d, now), ...templateCells(d),
  ],
};

/** Desired, Current, Ready: replicasets and replicationcontrollers. */
export const replicaSetColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Number of desired pods.'),
    column('Current', 'integer', 'Number of pods currently running.'),
    column('Ready', 'integer', 'Number of ready pods.'),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
  ],
  cells: (rs, now) => [
    name(rs), count(at(rs, 'spec', 'replicas')), count(at(rs, 'status', 'replicas')), count(at(rs, 'status', 'readyReplicas')),
    age(rs, now), ...templateCells(rs),
  ],
};

export const statefulSetColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of ready pods out of the desired replicas.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
  ],
  cells: (ss, now) => [
    name(ss), `${count(at(ss, 'status', 'readyReplicas'))}/${count(at(ss, 'spec', 'replicas'))}`, age(ss, now),
    ...containerCells(at(ss, 'spec', 'template', 'spec')),
  ],
};

export const daemonSetColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'The number of nodes that should run the daemon pod.'),
    column('Current', 'integer', 'The number of nodes running at least one daemon pod that are supposed to.'),
    column('Ready', 'integer', 'The number of nodes that should run the daemon pod and have one ready.'),
    column('Up-to-date', 'integer', 'The number of nodes running the updated daemon pod.'),
    column('Available', 'integer', 'The number of nodes with an available daemon pod.'),
    column('Node Selector', 'string', 'The node selector of the pod template.'),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
  ],
  cells: (ds, now) => [
    name(ds), count(at(ds, 'status', 'desiredNumberScheduled')), count(at(ds, 'status', 'currentNumberScheduled')),
    count(at(ds, 'status', 'numberReady')), count(at(ds, 'status', 'updatedNumberScheduled')), count(at(ds, 'status', 'numberAvailable')),
    formatLabels(at(ds, 'spec', 'template', 'spec', 'nodeSelector')), age(ds, now), ...templateCells(ds),
  ],
};

function jobCompletions(job: Parameters<TableColumns['cells']>[0]): string {
  const succeeded = count(at(job, 'status', 'succeeded'));
  const completions = at(job, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = count(at(job, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Parameters<TableColumns['cells']>[0], now: number): string {
  const start = Date.parse(text(at(job, 'status', 'startTime')));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(text(at(job, 'status', 'completionTime')));
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export const jobColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Completions', 'string', 'Successful pods out of the desired completions.'),
    column('Duration', 'string', 'Time the job took (or has taken so far) to complete.'),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
  ],
  cells: (job, now) => [name(job), jobCompletions(job), jobDuration(job, now), age(job, now), ...templateCells(job)],
};

export const cronJobColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Schedule', 'string', 'The schedule in cron format.'),
    column('Suspend', 'boolean', 'Whether later runs are suspended.'),
    column('Active', 'integer', 'Number of currently running jobs.'),
    column('Last Schedule', 'string', 'When a job was last scheduled.'),
    AGE_COLUMN,
    ...TEMPLATE_COLUMNS,
  ],
  cells(cj, now) {
    const last = at(cj, 'status', 'lastScheduleTime');
    const jobSpec = at(cj, 'spec', 'jobTemplate', 'spec');
    return [
      name(cj), text(at(cj, 'spec', 'schedule')), at(cj, 'spec', 'suspend') === true, asArray(at(cj, 'status', 'active')).length,
      last ? since(last, now) : '<none>', age(cj, now), ...containerCells(at(jobSpec, 'template', 'spec')), formatSelector(at(jobSpec, 'selector')),
    ];
  },
};
