import { PutCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { CollectionEraser, Deletion, DeletionLedger } from '#domain/deletions';
import type { DocumentClient } from './client';
import { allItems, collectionItems, deleteCollectionItems } from './item-collections';
import { DELETIONS_TABLE, PROFILE_SK, userPk } from './table-layout';

/**
 * The deletion ledger on its own table: one item per deletion, keyed by the user and the change
 * that deleted it, with `expires_at` (epoch seconds) for DynamoDB's TTL at the end of the
 * recovery window. The since() look-up scans: the ledger holds one recovery window of deletions.
 */
export function createDeletionLedger(db: DocumentClient, tableName: string, options: { retentionDays: number }): DeletionLedger {
  const ttl = DELETIONS_TABLE.timeToLiveAttribute!;
  const now = () => new Date().toISOString();
  return {
    async record(deletion: Deletion): Promise<void> {
      const expiresAt = Math.ceil(Date.parse(deletion.deletedAt) / 1000) + options.retentionDays * 86_400;
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: userPk(deletion.ownerId, deletion.email),
            sk: `${deletion.deletedAt}#${deletion.changeId}`,
            owner_id: deletion.ownerId,
            user_email: deletion.email,
            deleted_at: deletion.deletedAt,
            // The stream's time of a delete may be early (to the second; DynamoDB Local: the minute);
            // the time it reached the ledger never is, so since() selects on this one.
            recorded_at: now(),
            change_id: deletion.changeId,
            [ttl]: expiresAt,
          },
        }),
      );
    },

    async since(since: string): Promise<Deletion[]> {
      const items = await allItems(
        paginateScan(
          { client: db },
          {
            TableName: tableName,
            // TTL deletes expired items some time after they expire; until then they are ignored here.
            FilterExpression: 'recorded_at >= :since AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': ttl },
            ExpressionAttributeValues: { ':since': since, ':now': Math.floor(Date.now() / 1000) },
            ConsistentRead: true,
          },
        ),
      );
      const deletions: Deletion[] = items.map((item) => ({
        ownerId: item.owner_id as string,
        email: item.user_email as string,
        deletedAt: item.deleted_at as string,
        changeId: item.change_id as string,
      }));
      return deletions.sort((a, b) => a.deletedAt.localeCompare(b.deletedAt));
    },
  };
}

/** Erases item collections of a users table (a restored copy, for restore safety), the profile last. */
export function createCollectionEraser(db: DocumentClient, usersTableName: string): CollectionEraser {
  return {
    async eraseUser(ownerId: string, email: string, deletedAt: string): Promise<number> {
      const pk = userPk(ownerId, email);
      const items = await collectionItems(db, usersTableName, pk, 'sk, created_at');
      const sortKeys = items.map((item) => item.sk as string);
      const createdAt = items.find((item) => item.sk === PROFILE_SK)?.created_at as string | undefined;
      // Created after that deletion: the user came back, and this collection is theirs now.
      if (createdAt !== undefined && Date.parse(createdAt) > Date.parse(deletedAt)) return 0;
      const associated = sortKeys.filter((sk) => sk !== PROFILE_SK);
      await deleteCollectionItems(db, usersTableName, pk, associated);
      if (associated.length < sortKeys.length) await deleteCollectionItems(db, usersTableName, pk, [PROFILE_SK]);
      return sortKeys.length;
    },
  };
}
