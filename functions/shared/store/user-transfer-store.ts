import { GetCommand, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { ExportedUser, UserTransferStore } from '#domain/user-transfer';
import type { DocumentClient } from './client';
import { PROFILE_SK, userKey } from './table-layout';
import { putNewUser } from './users-store';

/**
 * The users table behind the domain's {@link UserTransferStore} port (the admin CLI's import and
 * export). Creates are the API's own conditional put. The table is keyed by user, not by owner, so
 * an export scans it, filtered to the owner's profiles: it reads the whole table (every owner's
 * items) once, in pages, which is an operator's job, not a request's.
 */
export function createUserTransferStore(db: DocumentClient, tableName: string): UserTransferStore {
  return {
    createUser: (user) => putNewUser(db, tableName, user),

    async userExists(ownerId, email) {
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName, Key: userKey(ownerId, email), ProjectionExpression: 'pk', ConsistentRead: true }),
      );
      return Item !== undefined;
    },

    async *exportUsers(ownerId) {
      const pages = paginateScan(
        { client: db },
        {
          TableName: tableName,
          FilterExpression: 'owner_id = :owner AND sk = :profile AND attribute_not_exists(white_label)',
          ExpressionAttributeValues: { ':owner': ownerId, ':profile': PROFILE_SK },
          ProjectionExpression: 'user_email, password_hash, should_reset_password, created_at',
          ConsistentRead: true,
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          const user: ExportedUser = {
            user_email: String(item.user_email),
            password_hash: String(item.password_hash),
            should_reset_password: item.should_reset_password === true,
            created_at: String(item.created_at),
          };
          yield user;
        }
      }
    },
  };
}
