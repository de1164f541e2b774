/**
 * Table columns of the admission webhook configurations (Mutating- and
 * ValidatingWebhookConfiguration), as the established printer gives them: the number of webhooks.
 */
import type { TableColumns } from '../../types.js';
import { asArray } from '../define.js';
import { AGE_COLUMN, age, column, NAME_COLUMN, name } from './cells.js';

export const webhookConfigurationColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in this configuration.'), AGE_COLUMN],
  cells: (o, now) => [name(o), asArray(o['webhooks']).length, age(o, now)],
};
