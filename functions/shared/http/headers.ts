import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * How many values of header `name` (lower case) the event carries, whatever the spelling of the
 * name. Read before header normalisation, which folds a name's spellings into one and keeps only
 * the last value.
 */
export function headerCount(event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>, name: string): number {
  let count = 0;
  // API Gateway REST (and the local server) list every occurrence here, one name per spelling.
  if (event.multiValueHeaders) {
    for (const key of Object.keys(event.multiValueHeaders)) {
      if (key.toLowerCase() === name) count += event.multiValueHeaders[key]?.length ?? 0;
    }
    return count;
  }
  // A hand-made event (a console test invoke) may carry only the single-value map.
  for (const key of Object.keys(event.headers ?? {})) if (key.toLowerCase() === name) count++;
  return count;
}
