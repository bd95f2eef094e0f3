/**
 * `npx tsx bench/oversized-inputs.ts`: what a sign-in costs for inputs past any user's: a password over
 * 4 × the stage's maximum length in UTF-8 bytes (8 MiB of a decomposed letter and its accent, which NFC
 * would halve at a cost, and one just past the limit) and an e-mail over 254 octets (2,100 characters),
 * each at a known and an unknown e-mail. The sign-in module as a tool builds it, on its own DynamoDB
 * Local; wall time per call, median and highest of 200 after 20 unmeasured. The answer must be `wrong`
 * (checked on every call) in under 5 ms (the issue's target). Prints its figures, one a line, for a record
 * (docs/measurements/, `npm run figures -- --record`).
 */

import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { hashPassword } from '#domain/passwords';
import { DEFAULT_PASSWORD_POLICY, formatArgon2Setting, parseArgon2Setting } from '#platform/config';
import { createDocumentClient, localConnection } from '#store/client';
import { LOCAL_TABLES } from '#store/local-engine';
import { createUsersStore } from '#store/users-store';
import { ensureTables, startDynamoDbLocal } from '../local/dynamodb-local';
import { freePort } from '../local/free-port';
import { createSignIn } from '../packages/sign-in/src/index';
import { median, round } from './stats';

const CALLS = 200;
const WARM_UP = 20;
const setting = parseArgon2Setting(process.env.ARGON2_SETTING, 'ARGON2_SETTING');
const max = DEFAULT_PASSWORD_POLICY.maxLength;

const engine = await startDynamoDbLocal({ port: await freePort() });
try {
  await ensureTables(engine.endpoint, LOCAL_TABLES);
  const ownerId = 'bench-owner';
  const known = 'known@example.com';
  await createUsersStore(
    createDocumentClient({ endpoint: engine.endpoint }),
    LOCAL_TABLES.usersTableName,
    LOCAL_TABLES.signInTableName,
  ).createUser({
    ownerId,
    email: known,
    passwordHash: await hashPassword('the known password', setting),
    shouldResetPassword: false,
  });
  const tool = createSignIn({
    usersTable: LOCAL_TABLES.usersTableName,
    signInTable: LOCAL_TABLES.signInTableName,
    argon2Setting: formatArgon2Setting(setting),
    dynamodb: localConnection(engine.endpoint),
  });
  const cases = {
    'decomposed 8 MiB password': { password: 'e\u0301'.repeat(Math.ceil((8 * 1024 * 1024) / 3)), email: undefined },
    'password 2 bytes past 4 x max': { password: 'é'.repeat(2 * max + 1), email: undefined },
    'e-mail of 2,100 characters': { password: 'a password', email: `${'a'.repeat(2_100)}@example.com` },
  } as const;
  console.log(
    `load average: ${loadavg()
      .map((l) => round(l, 1))
      .join(' ')}`,
  );
  for (const [name, input] of Object.entries(cases)) {
    // An oversized e-mail is no one's: once. A password: at the known user and at an unknown e-mail.
    for (const who of input.email ? (['any'] as const) : (['known', 'unknown'] as const)) {
      const email = input.email ?? (who === 'known' ? known : 'nobody@example.com');
      const times: number[] = [];
      for (let i = 0; i < WARM_UP + CALLS; i++) {
        const start = performance.now();
        const result = await tool.signIn({ ownerId, email, password: input.password });
        const took = performance.now() - start;
        if (result.outcome !== 'wrong') throw new Error(`${name}, ${who}: ${result.outcome}, not wrong`);
        if (i >= WARM_UP) times.push(took);
      }
      console.log(
        `${name}, ${who === 'any' ? 'no user' : `${who} e-mail`}: median ${round(median(times), 3)} ms, highest ${round(Math.max(...times), 3)} ms`,
      );
    }
  }
  await tool.close();
} finally {
  engine.process.kill();
}
