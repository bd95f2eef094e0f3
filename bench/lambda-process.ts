/**
 * A process that stands in for one warm Lambda execution environment: measurements run their
 * `inLambda` part here (bench/stand-in.ts gives them the handlers, called as Lambda calls them,
 * and CPU read per thread), so that nothing else (load generator, DynamoDB Local, the runner) is
 * counted. It logs at INFO with metrics on as a deployed function does (its stdout goes nowhere).
 * The parent (bench/context.ts) sets the environment (endpoint, tables), sends `{ apiKey }`, then
 * one `LambdaRequest` at a time, and disconnects when done.
 */

import type { InLambda } from './measurement';
import { createStandIn, type StandIn } from './stand-in';

export interface LambdaRequest {
  readonly moduleUrl: string;
  readonly args: unknown;
}

export type LambdaReply = { readonly result: unknown } | { readonly error: string };

let standIn: Promise<StandIn> | undefined;

process.on('message', (message: { apiKey: string } | LambdaRequest) => {
  if ('apiKey' in message) {
    standIn = createStandIn(message.apiKey);
    return;
  }
  const reply = (answer: LambdaReply) => process.send?.(answer);
  (async () => {
    if (!standIn) throw new Error('the stand-in was sent a request before its key');
    const module = (await import(message.moduleUrl)) as { inLambda?: InLambda };
    if (typeof module.inLambda !== 'function') throw new Error(`${message.moduleUrl} exports no inLambda`);
    return module.inLambda(await standIn, message.args);
  })().then(
    (result) => reply({ result }),
    (error: Error) => reply({ error: error.stack ?? error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
