/**
 * The move of the sign-in state out of the users table (ADR 26). Versions of the sign-in module before
 * the sign-in table kept each e-mail's failed attempts in the users table, under the sort key SIGN_IN_SK;
 * this copies every such item into the sign-in table and then deletes it from the users table, so a
 * stage whose tables existed before the move keeps each account's count, its wait and its lock.
 *
 * Each item: one conditional PutItem into the sign-in table (only where nothing is there yet: a state
 * the new module wrote meanwhile is newer and stays), then one DeleteItem from the users table on
 * condition that it still holds what was copied (an old module still running may have counted again:
 * that item is left for the next run). Safe to run again; `npm start` runs it at every start-up,
 * `admin migrate-sign-in-state` against a deployed stage (the rollout in docs/data-contract.md).
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from './client';
import { SIGN_IN_SK } from './table-layout';

export interface SignInMigration {
  /** Items copied into the sign-in table and deleted from the users table. */
  readonly moved: number;
  /** Items deleted from the users table because the sign-in table already held a newer state. */
  readonly superseded: number;
  /** Items that changed while being moved (an old module counted again): left for the next run. */
  readonly left: number;
}

const written = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

/** Moves every legacy sign-in state item of `usersTable` into `signInTable`. */
export async function migrateSignInState(
  db: DocumentClient,
  tables: { usersTable: string; signInTable: string },
): Promise<SignInMigration> {
  let [moved, superseded, left] = [0, 0, 0];
  const pages = paginateScan(
    { client: db },
    {
      TableName: tables.usersTable,
      FilterExpression: 'sk = :state',
      ExpressionAttributeValues: { ':state': SIGN_IN_SK },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const copied = await written(() =>
        db.send(new PutCommand({ TableName: tables.signInTable, Item: item, ConditionExpression: 'attribute_not_exists(pk)' })),
      );
      // Delete only what was read: every attribute as it was (an old module's new count is not lost).
      const names = Object.keys(item).filter((name) => name !== 'pk' && name !== 'sk');
      const unchanged = names.map((_, i) => `#a${i} = :a${i}`).join(' AND ');
      const deleted = await written(() =>
        db.send(
          new DeleteCommand({
            TableName: tables.usersTable,
            Key: { pk: item.pk, sk: item.sk },
            ConditionExpression: names.length > 0 ? `attribute_exists(pk) AND ${unchanged}` : 'attribute_exists(pk)',
            ...(names.length > 0 && {
              ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
              ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:a${i}`, item[name]])),
            }),
          }),
        ),
      );
      if (!deleted) left++;
      else if (copied) moved++;
      else superseded++;
    }
  }
  return { moved, superseded, left };
}
