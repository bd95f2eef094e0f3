/**
 * The service under load, in its own process (as a function is apart from its callers): the
 * local server on a free loopback port, reporting the port to the parent over IPC. The parent
 * sets DYNAMODB_ENDPOINT and the table names before starting it.
 */

import type { AddressInfo } from 'node:net';
import { createLocalServer } from '../local/server';

const server = createLocalServer();
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
