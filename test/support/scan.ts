/** Every item a Scan returns, page after page: a Scan of the shared engine stops at 1 MB a page. */

import { paginateScan, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from '#store/client';

export async function scanAll(client: DocumentClient, input: ScanCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateScan({ client }, input)) items.push(...(page.Items ?? []));
  return items;
}
