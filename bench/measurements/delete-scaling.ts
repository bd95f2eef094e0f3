/** deleteUser with n associated items, called in process: its calls against `2 + ceil(n/25)`, and its time per item. */

import type { DeleteScalingRow } from '../in-process';
import { holds, type Measurement } from '../measurement';
import { table } from '../report';

/** Linear: the cost per item at 2,500 items is at most this many times the cost at 250 (slack for noise). */
const LINEAR_SLACK = 1.25;

export interface DeleteScaling {
  /** By the number of associated items (`0`, `25`, `250`, `2500`). */
  readonly items: Record<string, Omit<DeleteScalingRow, 'items'>>;
}

export const deleteScaling: Measurement<DeleteScaling> = {
  name: 'deleteScaling',
  title: 'in process: deleteUser with 0 to 2,500 associated items',
  needs: ['dynamodb'],
  async run(context) {
    const inProcess = await import('../in-process');
    const rows = await inProcess.deleteScaling(inProcess.callCounter(), context.dynamodb.owner.ownerId, context.dynamodb.owner.apiKey);
    return { items: Object.fromEntries(rows.map(({ items, ...row }) => [String(items), row])) };
  },
  targets(r) {
    const rows = Object.entries(r.items);
    const perItem = (n: number) => r.items[n]?.msPerItem ?? Number.NaN;
    return {
      calls: holds(
        'delete calls <= 2 + ceil(n/25)',
        '2 + ceil(n/25)',
        rows.map(([n, row]) => `${n}: ${row.calls}/${row.callsBound}`).join(', '),
        rows.every(([, row]) => row.calls <= row.callsBound),
      ),
      linear: holds(
        `delete time linear (ms/item at 2,500 <= ${LINEAR_SLACK} x at 250)`,
        `${LINEAR_SLACK} x`,
        `${perItem(250)} → ${perItem(2_500)} ms/item`,
        perItem(2_500) <= LINEAR_SLACK * perItem(250),
      ),
    };
  },
  render: (r) => `## deleteUser with associated data (in process)

${table(
  ['items', 'ms', 'ms per item', 'DynamoDB calls', 'bound 2 + ceil(n/25)'],
  Object.entries(r.items).map(([n, row]) => [n, row.ms, row.msPerItem, row.calls, row.callsBound]),
)}`,
};
