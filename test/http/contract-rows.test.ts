/**
 * Every row of docs/api-contract.md's tables (a case, a status, a body), read from the document at
 * run time and checked over real HTTP: a scenario per row, keyed by the row's id (its `id` cell; the
 * case text is free to edit), grouped here by table. An answer is compared byte for byte (a pretty-printed body is not the
 * contract's) with the headers that carry meaning (Content-Type, Allow, Retry-After,
 * Idempotent-Replayed). Each clause of a row's case (`missing, empty, ... or revoked`) needs a
 * probe named after it, or a test elsewhere that holds it. A row without a scenario fails the suite,
 * naming it; a message changed in the document or in the code fails its row.
 *
 * Locally every row runs but those a deployed stage alone can show (their `where` cell says
 * `npm run test:staging`: skipped here, run by `npm run test:staging`) and those held by another
 * test (`notOverHttp`). Against a stage, the rows that inject a storage fault are skipped.
 */

import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { DEFINITIONS, OPERATIONS } from '#contract/operations';
import {
  type Answer,
  CONTRACT_DOC,
  type ContractRow,
  contractRows,
  deployedOnly,
  idProblems,
  rowMismatch,
  rowName,
  rowsWithoutScenario,
  uncoveredClauses,
} from '../support/contract-doc';
import { type ApiResponse, apiResponse, postWithRawHeaders } from '../support/http-client';
import { ROOT } from '../support/processes';
import { exchangeRaw } from '../support/raw-http';
import { expiredKey, keyWithoutOwnerAccount, ownerWithBlockedWords, revokeAll, revokedKey, scopedKey } from '../support/stage-owners';
import { useTarget } from '../support/target';

const suite = useTarget();
afterAll(revokeAll);

const onStage = process.env.TEST_TARGET === 'staging';
const A = (path: string, body?: unknown, options?: Parameters<typeof suite.api.asA>[2]) => suite.api.asA(path, body, options);
const UNKNOWN_KEY = `wlk_${'A'.repeat(43)}`;
const OVERSIZED = JSON.stringify({ user_email: 'a@example.com', padding: 'x'.repeat(16 * 1024) });
/** The test that holds "any failure not listed": every error the operation does not list becomes its 500. */
const ANY_FAILURE = 'test/unit/shape-errors.test.ts';

/**
 * One request of a scenario: what it tried (named after the clause of the row it probes, then `: `
 * and any detail), its answer, and the row's placeholders as they apply to it.
 */
interface Probe {
  readonly what: string;
  readonly answer: Answer;
  readonly fill?: Readonly<Record<string, unknown>>;
}
interface Scenario {
  readonly run: () => Promise<Probe[]>;
  /** Needs a storage fault injected into the in-process local server: not run against a stage. */
  readonly localOnly?: true;
  /** Not checkable over HTTP at all: why, and which test holds the row instead. */
  readonly notOverHttp?: string;
  /** Clauses of the row another test holds: the clause's head, and that test's file. */
  readonly elsewhere?: Readonly<Record<string, string>>;
}

const probe = (what: string, answer: ApiResponse, fill?: Probe['fill']): Probe => ({
  what,
  answer: { status: answer.status, bytes: answer.bytes, headers: answer.headers },
  ...(fill && { fill }),
});

/** A probe per body, all to one path. */
const each = (path: string, bodies: Record<string, unknown>) => async () =>
  Promise.all(Object.entries(bodies).map(async ([what, body]) => probe(what, await A(path, body))));

/** A user of owner A that exists for the scenario. */
async function existingUser(tag: string): Promise<string> {
  const email = suite.api.email(tag);
  const created = await A('/v1/createUser', { user_email: email, user_password: 'a password set here' });
  expect([created.status, created.body]).toEqual([200, { user_email: email, user_password: 'a password set here' }]);
  return email;
}

/** The in-process local server's storage, faulted once for `operation` on the users table. */
async function withStorageFault<T>(operation: 'PutItem' | 'UpdateItem' | 'Query', act: () => Promise<T>): Promise<T> {
  const { injectFault } = await import('../support/faults');
  const { processStores } = await import('#store/stores');
  const { config, stores } = processStores();
  const fault = injectFault(stores.client, { operation, kind: 'rejected', table: config.usersTableName });
  try {
    return await act();
  } finally {
    fault.remove();
  }
}

/** Two requests with one Idempotency-Key, the second while the first is still running. */
async function whileStillRunning(): Promise<ApiResponse> {
  const key = randomUUID();
  const body = { user_email: suite.api.email('in-flight') };
  const keyed = () => A('/v1/createUser', body, { headers: { 'Idempotency-Key': key } });
  if (onStage) {
    // No hook into a stage: the duplicates race the first request (an argon2id hash long).
    const answers = await Promise.all(Array.from({ length: 8 }, keyed));
    const busy = answers.find((answer) => answer.status === 409);
    if (!busy) throw new Error(`no duplicate arrived while the first was running: ${answers.map((a) => a.status).join(' ')}`);
    return busy;
  }
  const { holdRequests } = await import('../support/faults');
  const { processStores } = await import('#store/stores');
  const { config, stores } = processStores();
  const hold = holdRequests(stores.client, { operation: 'PutItem', table: config.usersTableName });
  try {
    const first = keyed();
    await hold.arrived;
    const duplicate = await keyed();
    hold.release();
    expect((await first).status).toBe(200);
    return duplicate;
  } finally {
    hold.release();
    hold.remove();
  }
}

/** The local server's answer to bytes no HTTP client sends (API Gateway answers these itself in front of a stage). */
const raw = (requests: Record<string, string>): Scenario => ({
  localOnly: true,
  run: () =>
    Promise.all(
      Object.entries(requests).map(async ([what, bytes]) => {
        const [answer] = await exchangeRaw(suite.target.baseUrl, bytes);
        return probe(what, apiResponse(answer?.status ?? 0, answer?.headers ?? {}, answer?.body ?? ''));
      }),
    ),
});

const SCENARIOS: Record<string, Record<string, Scenario>> = {
  'Order of checks': {
    'order-400e': raw({
      'a malformed request line': 'POST /v1/createUser HTTP/9\r\nHost: x\r\n\r\n',
      header: 'POST /v1/createUser HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n',
      '`Content-Length` beside `Transfer-Encoding`':
        'POST /v1/createUser HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    }),
    'order-400f': raw({
      'an HTTP/1.1 request without a `Host` header': 'POST /v1/createUser HTTP/1.1\r\nContent-Length: 0\r\n\r\n',
      'with two': 'POST /v1/createUser HTTP/1.1\r\nHost: a\r\nHost: b\r\nContent-Length: 0\r\n\r\n',
    }),
    'order-400g': raw({
      CONNECT: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n',
    }),
    'order-417': raw({
      'an `Expect` header other than `100-continue`: something-else':
        'POST /v1/createUser HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\n{}',
    }),
    'order-431': raw({
      'a header section over 16 KiB: 20,000 bytes of one header': `POST /v1/createUser HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    }),
    'order-404': {
      run: async () => [probe('POST /v1/suspendUser', await A('/v1/suspendUser', {})), probe('POST /', await A('/', {}))],
    },
    'order-405': {
      run: async () => [probe('GET /v1/createUser', await A('/v1/createUser', undefined, { method: 'GET' }))],
    },
    'order-401a': {
      run: async () => {
        const key = suite.target.a.apiKey;
        const send = (lines: [string, string][]) =>
          postWithRawHeaders(suite.target.baseUrl, '/v1/deleteUser', lines, { user_email: 'a@example.com' });
        return [
          probe(
            'sent more than once: the same valid key twice',
            await send([
              ['X-API-Key', key],
              ['X-API-Key', key],
            ]),
          ),
          probe(
            'whatever the values: a valid key and an unknown one, two spellings',
            await send([
              ['x-api-key', key],
              ['X-Api-Key', UNKNOWN_KEY],
            ]),
          ),
        ];
      },
    },
    'order-401b': {
      run: async () => {
        const body = { user_email: 'a@example.com' };
        const revoked = await revokedKey(suite.target.a.ownerEmail);
        return Promise.all(
          Object.entries({
            missing: null,
            empty: '',
            'not shaped like an issued key': 'not-a-key',
            unknown: UNKNOWN_KEY,
            'revoked: issued, then revoked before its first use': revoked,
          }).map(async ([what, apiKey]) => probe(what, await A('/v1/deleteUser', body, { apiKey }))),
        );
      },
    },
    'order-401c': {
      run: async () => {
        const deleteOnly = await scopedKey(suite.target.a.ownerEmail, { operations: ['deleteUser'] });
        const expired = await expiredKey(suite.target.a.ownerEmail);
        return [
          probe(
            'a key limited to other operations: deleteUser only, on createUser',
            await A('/v1/createUser', { user_email: 'a@example.com' }, { apiKey: deleteOnly }),
          ),
          probe('past its expiry: an hour ago', await A('/v1/deleteUser', { user_email: 'a@example.com' }, { apiKey: expired })),
        ];
      },
    },
    'order-403': {
      run: async () => {
        const apiKey = await keyWithoutOwnerAccount(suite.target.runPrefix);
        const bodies = {
          '/v1/createUser': { user_email: 'a@example.com' },
          '/v1/resetUserPassword': { user_email: 'a@example.com', new_password: 'long enough' },
          '/v1/deleteUser': { user_email: 'a@example.com' },
        };
        return Promise.all(
          Object.entries(bodies).map(async ([path, body], i) =>
            probe(`${i === 0 ? 'no longer exists' : 'on every operation'}: ${path}`, await A(path, body, { apiKey })),
          ),
        );
      },
    },
    'order-400a': {
      run: async () => {
        const body = { user_email: 'a@example.com' };
        const withKey = (key: string) => A('/v1/deleteUser', body, { headers: { 'Idempotency-Key': key } });
        const twice = await postWithRawHeaders(
          suite.target.baseUrl,
          '/v1/deleteUser',
          [
            ['X-API-Key', suite.target.a.apiKey],
            ['Idempotency-Key', randomUUID()],
            ['Idempotency-Key', randomUUID()],
          ],
          body,
        );
        return [
          probe('not 16 to 255 printable ASCII characters: 15', await withKey('k'.repeat(15))),
          probe('not 16 to 255 printable ASCII characters: 256', await withKey('k'.repeat(256))),
          probe('not 16 to 255 printable ASCII characters: a tab inside', await withKey(`${'k'.repeat(10)}\t${'k'.repeat(10)}`)),
          probe('sent twice: two well-formed keys', twice),
        ];
      },
    },
    'order-413': {
      run: async () => [
        probe('larger than 16 KiB: JSON', await A('/v1/createUser', undefined, { raw: OVERSIZED })),
        probe(
          'whatever its content type: text/plain',
          await A('/v1/createUser', undefined, { raw: OVERSIZED, headers: { 'content-type': 'text/plain' } }),
        ),
      ],
    },
    'order-415': {
      run: async () => [
        probe('text/plain', await A('/v1/createUser', { user_email: 'a@example.com' }, { headers: { 'content-type': 'text/plain' } })),
      ],
    },
    'order-400b': {
      run: async () => [
        probe(
          'bytes that are not UTF-8: 0xFF in a value',
          await A('/v1/createUser', undefined, {
            raw: Buffer.concat([Buffer.from('{"user_email":"a'), Buffer.from([0xff]), Buffer.from('@example.com"}')]),
          }),
        ),
        probe(
          'bytes that are not UTF-8: a truncated sequence',
          await A('/v1/createUser', undefined, { raw: Buffer.from([0x7b, 0xe2, 0x82]) }),
        ),
        probe('holding an unpaired surrogate: in a value', await A('/v1/createUser', undefined, { raw: '{"user_email":"\\ud800"}' })),
        probe('holding an unpaired surrogate: in a key', await A('/v1/createUser', undefined, { raw: '{"\\ud800":"a"}' })),
      ],
    },
    'order-400c': {
      run: async () =>
        Promise.all(
          Object.entries({
            'not valid JSON': 'not json',
            'JSON that is not an object: an array': '[]',
            'JSON that is not an object: a string': '"a"',
            'JSON that is not an object: null': 'null',
          }).map(async ([what, raw]) => probe(what, await A('/v1/createUser', undefined, { raw }))),
        ),
    },
    'order-400d': {
      run: async () => [
        probe(
          'createUser, user_password twice',
          await A('/v1/createUser', undefined, {
            raw: '{"user_email":"a@example.com","user_password":"one long password","user_password":"another long one"}',
          }),
          { '<name>': 'user_password' },
        ),
        probe(
          'resetUserPassword, new_password then user_email twice',
          await A('/v1/resetUserPassword', undefined, {
            raw: '{"user_email":"a@example.com","new_password":"x","new_password":"y","user_email":"b@example.com"}',
          }),
          { '<name>': 'new_password' },
        ),
        probe(
          'deleteUser, user_email twice',
          await A('/v1/deleteUser', undefined, { raw: '{"user_email":"a@example.com","user_email":"b@example.com"}' }),
          {
            '<name>': 'user_email',
          },
        ),
      ],
    },
    'order-422': {
      run: async () => {
        const headers = { 'Idempotency-Key': randomUUID() };
        const first = await A('/v1/createUser', { user_email: suite.api.email('key-first') }, { headers });
        expect(first.status).toBe(200);
        return [
          probe('another body', await A('/v1/createUser', { user_email: suite.api.email('key-other') }, { headers })),
          probe('another operation', await A('/v1/deleteUser', { user_email: suite.api.email('key-first') }, { headers })),
        ];
      },
    },
    'order-409': {
      run: async () => [probe('the same create while the first runs', await whileStillRunning())],
    },
  },
  createUser: {
    'createUser-200': {
      run: async () => {
        const email = suite.api.email('row-created');
        const answer = await A('/v1/createUser', { user_email: `  ${email.toUpperCase()} `, user_password: 'correct horse battery' });
        return [probe('with a password', answer, { '<e-mail as stored>': email, '<the password that was set>': 'correct horse battery' })];
      },
    },
    'createUser-400a': {
      run: each('/v1/createUser', { absent: {}, null: { user_email: null }, empty: { user_email: '' } }),
    },
    'createUser-400b': {
      run: async () => [
        probe('is_admin', await A('/v1/createUser', { user_email: 'a@example.com', is_admin: true }), { '<name>': 'is_admin' }),
        // A name over 64 code points is echoed as its first 64 and an ellipsis.
        probe('a 16 KB name', await A('/v1/createUser', { user_email: 'a@example.com', ['n'.repeat(16_000)]: 1 }), {
          '<name>': `${'n'.repeat(64)}\u2026`,
        }),
      ],
    },
    'createUser-400c': {
      run: each('/v1/createUser', {
        'a number': { user_email: 42 },
        'not an address': { user_email: 'not-an-email' },
        '255 characters': { user_email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}` },
      }),
    },
    'createUser-400d': {
      run: each('/v1/createUser', {
        'present and not a string': { user_email: 'a@example.com', user_password: 12345678 },
        'outside the password policy: too short': { user_email: 'a@example.com', user_password: 'seven77' },
        'outside the password policy: too long': { user_email: 'a@example.com', user_password: 'x'.repeat(1025) },
        'outside the password policy: null': { user_email: 'a@example.com', user_password: null },
        'outside the password policy: empty': { user_email: 'a@example.com', user_password: '' },
      }),
    },
    'createUser-400e': {
      run: async () => {
        const email = suite.api.email('guessable');
        const withWords = await ownerWithBlockedWords(suite.target.runPrefix, ['acmewidgets']);
        return [
          ...(await Promise.all(
            Object.entries({
              'on the blocklist: iloveyou': { user_email: suite.api.email('list'), user_password: 'iloveyou' },
              'on the blocklist: in another case': { user_email: suite.api.email('list-case'), user_password: 'QWERTY123' },
              'on the blocklist: spelled with a long s and a zero-width space': {
                user_email: suite.api.email('list-spelling'),
                user_password: 'PA\u017FS\u200BWORD',
              },
              "the user's e-mail": { user_email: email, user_password: email },
              "the user's e-mail: a derivative of its domain label": {
                user_email: suite.api.email('derivative'),
                user_password: 'Example 2026!',
              },
              'its local part': { user_email: email, user_password: email.split('@')[0] },
            }).map(async ([what, body]) => probe(what, await A('/v1/createUser', body))),
          )),
          probe(
            "an owner's blocked word: in another case",
            await A('/v1/createUser', { user_email: suite.api.email('word'), user_password: 'AcmeWidgets' }, { apiKey: withWords }),
          ),
        ];
      },
    },
    'createUser-400f': {
      notOverHttp:
        'the online check is a stage setting, off by default (also on staging): test/integration/password-breach-check.test.ts turns it on against a stand-in range server and checks this status and body on create and reset',
      run: async () => [],
    },
    'createUser-400g': {
      run: each('/v1/createUser', {
        yes: { user_email: 'a@example.com', should_reset_password: 'yes' },
        null: { user_email: 'a@example.com', should_reset_password: null },
      }),
    },
    'createUser-409': {
      run: async () => [
        probe('a user of the tool', await A('/v1/createUser', { user_email: await existingUser('row-exists') })),
        probe("the owner's own e-mail", await A('/v1/createUser', { user_email: suite.target.a.ownerEmail })),
      ],
    },
    'createUser-500': {
      localOnly: true,
      elsewhere: { 'any failure not listed': ANY_FAILURE },
      run: async () => [
        probe(
          'storage failure: PutItem refused',
          await withStorageFault('PutItem', () => A('/v1/createUser', { user_email: suite.api.email('row-500') })),
        ),
      ],
    },
  },
  resetUserPassword: {
    'resetUserPassword-200': {
      run: async () => [
        probe(
          'a user of the tool',
          await A('/v1/resetUserPassword', { user_email: await existingUser('row-reset'), new_password: 'a new one' }),
        ),
      ],
    },
    'resetUserPassword-400a': {
      run: each('/v1/resetUserPassword', {
        '`user_email`: both absent': {},
        '`new_password` absent': { user_email: 'a@example.com' },
        'null: user_email': { user_email: null, new_password: 'long enough' },
        'empty: new_password': { user_email: 'a@example.com', new_password: '' },
      }),
    },
    'resetUserPassword-400b': {
      run: async () => [
        probe('role', await A('/v1/resetUserPassword', { user_email: 'a@example.com', new_password: 'long enough', role: 'x' }), {
          '<name>': 'role',
        }),
      ],
    },
    'resetUserPassword-400c': {
      run: each('/v1/resetUserPassword', { 'not an address': { user_email: 'nope', new_password: 'long enough' } }),
    },
    'resetUserPassword-400d': {
      run: each('/v1/resetUserPassword', {
        'not a string': { user_email: 'a@example.com', new_password: 12345678 },
        'outside the password policy: too long': { user_email: 'a@example.com', new_password: 'x'.repeat(1025) },
        'outside the password policy: too short': { user_email: 'a@example.com', new_password: 'seven77' },
      }),
    },
    'resetUserPassword-400e': {
      run: async () => {
        const email = await existingUser('reset-guessable');
        const withWords = await ownerWithBlockedWords(suite.target.runPrefix, ['acmewidgets']);
        return [
          ...(await Promise.all(
            Object.entries({
              'on the blocklist: password1': { user_email: email, new_password: 'password1' },
              'on the blocklist: in full width': { user_email: email, new_password: '\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44' },
              "the user's e-mail": { user_email: email, new_password: email.toUpperCase() },
              'its local part': { user_email: email, new_password: email.split('@')[0] },
              'its local part: a derivative': { user_email: email, new_password: `${email.split('@')[0]}-2026!` },
            }).map(async ([what, body]) => probe(what, await A('/v1/resetUserPassword', body))),
          )),
          // The owner's policy is checked before the user is looked up: no user of that owner is needed.
          probe(
            "an owner's blocked word",
            await A('/v1/resetUserPassword', { user_email: suite.api.email('word'), new_password: 'acmewidgets' }, { apiKey: withWords }),
          ),
        ];
      },
    },
    'resetUserPassword-400f': {
      notOverHttp:
        'the online check is a stage setting, off by default (also on staging): test/integration/password-breach-check.test.ts turns it on against a stand-in range server and checks this status and body on create and reset',
      run: async () => [],
    },
    'resetUserPassword-403': {
      run: async () => [
        probe(
          "the owner's account",
          await A('/v1/resetUserPassword', { user_email: suite.target.a.ownerEmail, new_password: 'long enough' }),
        ),
      ],
    },
    'resetUserPassword-404': {
      run: async () => [
        probe('nobody', await A('/v1/resetUserPassword', { user_email: suite.api.email('nobody'), new_password: 'long enough' })),
      ],
    },
    'resetUserPassword-500': {
      localOnly: true,
      elsewhere: { 'any failure not listed': ANY_FAILURE },
      run: async () => {
        const email = await existingUser('row-reset-500');
        return [
          probe(
            'storage failure: UpdateItem refused',
            await withStorageFault('UpdateItem', () => A('/v1/resetUserPassword', { user_email: email, new_password: 'long enough' })),
          ),
        ];
      },
    },
  },
  deleteUser: {
    'deleteUser-200': {
      run: async () => [probe('a user of the tool', await A('/v1/deleteUser', { user_email: await existingUser('row-delete') }))],
    },
    'deleteUser-400a': {
      run: each('/v1/deleteUser', { absent: {}, null: { user_email: null }, empty: { user_email: '  ' } }),
    },
    'deleteUser-400b': {
      run: async () => [
        probe('cascade', await A('/v1/deleteUser', { user_email: 'a@example.com', cascade: true }), { '<name>': 'cascade' }),
      ],
    },
    'deleteUser-400c': {
      run: each('/v1/deleteUser', { 'an array': { user_email: ['a@example.com'] } }),
    },
    'deleteUser-403': {
      run: async () => [probe("the owner's account", await A('/v1/deleteUser', { user_email: suite.target.a.ownerEmail }))],
    },
    'deleteUser-404': {
      run: async () => [
        probe('nobody', await A('/v1/deleteUser', { user_email: suite.api.email('nobody') })),
        probe("another owner's user", await suite.api.asB('/v1/deleteUser', { user_email: await existingUser('row-tenant') })),
      ],
    },
    'deleteUser-500': {
      localOnly: true,
      elsewhere: { 'any failure not listed': ANY_FAILURE },
      run: async () => {
        const email = await existingUser('row-delete-500');
        return [probe('storage failure: Query refused', await withStorageFault('Query', () => A('/v1/deleteUser', { user_email: email })))];
      },
    },
  },
  'Edge limits (deployed stages)': {
    'edge-401': {
      run: async () => [
        probe('absent', await A('/v1/createUser', { user_email: 'a@example.com' }, { apiKey: null })),
        probe('not shaped like an issued key', await A('/v1/createUser', { user_email: 'a@example.com' }, { apiKey: 'wlk_short' })),
        probe(
          'repeated',
          await postWithRawHeaders(
            suite.target.baseUrl,
            '/v1/createUser',
            [
              ['X-API-Key', suite.target.a.apiKey],
              ['X-API-Key', suite.target.a.apiKey],
            ],
            { user_email: 'a@example.com' },
          ),
        ),
      ],
    },
    'edge-429a': {
      notOverHttp:
        "a WAF rate rule: spending a stage's budget would refuse the whole suite; test/infra/edge-limits.test.ts holds the rule, status, body and Retry-After",
      run: async () => [],
    },
    'edge-429b': {
      notOverHttp:
        "a WAF rate rule: spending a stage's budget would refuse the whole suite; test/infra/edge-limits.test.ts holds the rule, status, body and Retry-After",
      run: async () => [],
    },
    'edge-413': {
      run: async () => [
        probe("an operation's body over 16 KiB: with a valid key", await A('/v1/deleteUser', undefined, { raw: OVERSIZED })),
        probe('however large: 1 MiB', await A('/v1/deleteUser', undefined, { raw: `{"user_email":"${'x'.repeat(1024 * 1024)}"}` })),
      ],
    },
  },
};

const rows = contractRows();
/** Every scenario by its row's id (the tables above only group them). */
const BY_ID: Record<string, Scenario> = Object.assign({}, ...Object.values(SCENARIOS));
const scenarioOf = (row: ContractRow): Scenario | undefined => (Object.hasOwn(BY_ID, row.id) ? BY_ID[row.id] : undefined);
/** Why a row is not run here, or undefined when it is. */
function notRunHere(row: ContractRow): string | undefined {
  const scenario = scenarioOf(row);
  if (!scenario) return 'no scenario';
  if (scenario.notOverHttp) return 'held elsewhere';
  if (onStage && scenario.localOnly) return 'local only (a storage fault)';
  if (!onStage && deployedOnly(row)) return 'a deployed stage only (npm run test:staging)';
  return undefined;
}

/**
 * Runs a row's scenario: every probe must answer exactly the row's status, body bytes and headers,
 * and every clause of the row's case must be probed (or held by the test its scenario names).
 */
async function mismatches(row: ContractRow, scenario: Scenario): Promise<string[]> {
  const probes = await scenario.run();
  if (probes.length === 0) return [`${rowName(row)}: the scenario sent nothing`];
  const unprobed = uncoveredClauses(
    row,
    probes.map((p) => p.what),
  ).filter((clause) => !Object.keys(scenario.elsewhere ?? {}).some((head) => clause.includes(head)));
  return [
    ...unprobed.map((clause) => `${rowName(row)}: no probe for the clause "${clause}"`),
    ...probes.flatMap(({ what, answer, fill }) => {
      const mismatch = rowMismatch(row, answer, fill);
      return mismatch ? [`${mismatch} (${what})`] : [];
    }),
  ];
}

describe('docs/api-contract.md, row by row', () => {
  it('reads the tables: the operations and the order of checks', () => {
    expect([...new Set(rows.map((row) => row.table))]).toEqual(['Order of checks', ...OPERATIONS, 'Edge limits (deployed stages)']);
  });

  it('every row has its own id', () => {
    expect(idProblems(rows)).toEqual([]);
  });

  it('every row has a scenario (a new row needs one here, keyed by its id)', () => {
    expect(rowsWithoutScenario(rows, BY_ID)).toEqual([]);
  });

  it('every scenario belongs to a row of the document, in its table (none left behind by a removed row)', () => {
    const ids = new Set(rows.map((row) => row.id));
    expect(Object.keys(BY_ID).filter((id) => !ids.has(id))).toEqual([]);
    for (const [table, scenarios] of Object.entries(SCENARIOS)) {
      expect([table, Object.keys(scenarios).filter((id) => rows.find((row) => row.id === id)?.table !== table)]).toEqual([table, []]);
    }
    expect(Object.values(SCENARIOS).flatMap((scenarios) => Object.keys(scenarios))).toHaveLength(Object.keys(BY_ID).length);
  });

  it('where each row is held: as docs/api-contract.md says, and each test named for a row or a clause exists', () => {
    const held = (where: (row: ContractRow, scenario: Scenario) => boolean) =>
      rows.filter((row) => where(row, scenarioOf(row)!)).map((row) => `${row.table} ${row.status}`);
    expect(held((_, scenario) => Boolean(scenario.notOverHttp))).toEqual([
      // The online password check's rows: every operation with a password field.
      ...OPERATIONS.filter((operation) => DEFINITIONS[operation].policyFields.length > 0).map((operation) => `${operation} 400`),
      'Edge limits (deployed stages) 429',
      'Edge limits (deployed stages) 429',
    ]);
    expect(held((row, scenario) => deployedOnly(row) && !scenario.notOverHttp)).toEqual([
      'Edge limits (deployed stages) 401',
      'Edge limits (deployed stages) 413',
    ]);
    expect(held((_, scenario) => Boolean(scenario.localOnly))).toEqual([
      'Order of checks 400',
      'Order of checks 400',
      'Order of checks 400',
      'Order of checks 417',
      'Order of checks 431',
      ...OPERATIONS.map((operation) => `${operation} 500`),
    ]);
    // Every row of the edge table says in its `where` cell that a deployed stage holds it.
    expect(rows.filter((row) => row.table.startsWith('Edge limits') && !/test:staging|test\/infra\//.test(row.where ?? ''))).toEqual([]);
    const files = Object.values(SCENARIOS).flatMap((cases) =>
      Object.values(cases).flatMap((scenario) => [
        ...Object.values(scenario.elsewhere ?? {}),
        ...(scenario.notOverHttp?.match(/test\/[\w/.-]+\.test\.ts/g) ?? []),
      ]),
    );
    expect(files.filter((file) => !existsSync(join(ROOT, file)))).toEqual([]);
  });

  // A row this target cannot show is a skipped test, never a passed one.
  for (const row of rows) {
    const why = notRunHere(row);
    if (why === 'no scenario' || why === 'held elsewhere') continue;
    (why ? it.skip : it)(
      rowName(row),
      async () => {
        expect(await mismatches(row, scenarioOf(row)!)).toEqual([]);
      },
      30_000,
    );
  }
});

describe('the check fails on an answer or a document that says otherwise', () => {
  const edited = (from: string, to: string) => {
    const text = readFileSync(CONTRACT_DOC, 'utf8');
    expect(text).toContain(from);
    return contractRows(text.replace(from, to));
  };
  const rowOf = (table: string, status: number) => rows.find((row) => row.table === table && row.status === status)!;

  it('a message mistyped in the document fails its row, naming it', async () => {
    const row = edited('| 404    | `User not found.`', '| 404    | `User not found`').find(
      (candidate) => candidate.table === 'resetUserPassword' && candidate.status === 404,
    )!;
    const found = await mismatches(row, scenarioOf(row)!);
    expect(found[0]).toBe(
      'resetUserPassword / no such user in the caller\'s tool: documented 404 {"message":"User not found"}, answered 404 {"message":"User not found."} (nobody)',
    );
  });

  it('a status changed in the document fails its row', async () => {
    const row = edited('| 409    | `User already exists.`', '| 400    | `User already exists.`').find(
      (c) => c.table === 'createUser' && c.status === 400 && c.body === '`User already exists.`',
    )!;
    expect(await mismatches(row, scenarioOf(row)!)).toHaveLength(2);
  });

  it("the same JSON, pretty-printed or with its keys in another order, is not the contract's body", async () => {
    const row = rowOf('resetUserPassword', 404);
    const [first] = await scenarioOf(row)!.run();
    expect(rowMismatch(row, first!.answer)).toBeUndefined();
    const pretty = Buffer.from(JSON.stringify(JSON.parse(Buffer.from(first!.answer.bytes).toString()), null, 2));
    expect(rowMismatch(row, { ...first!.answer, bytes: pretty })).toBe(
      'resetUserPassword / no such user in the caller\'s tool: documented 404 {"message":"User not found."}, answered 404 {\\n  "message": "User not found."\\n}',
    );
    const created = rowOf('createUser', 200);
    const answer = { ...first!.answer, status: 200, bytes: Buffer.from('{"user_password":"p","user_email":"e"}') };
    expect(rowMismatch(created, answer, { '<e-mail as stored>': 'e', '<the password that was set>': 'p' })).toMatch(
      /documented 200 \{"user_email":"e","user_password":"p"\}/,
    );
  });

  it('a header that matters, missing or added, fails the row', async () => {
    const row = rowOf('Order of checks', 405);
    const [answer] = (await scenarioOf(row)!.run()).map((p) => p.answer);
    expect(rowMismatch(row, answer!)).toBeUndefined();
    const without = new Headers(answer!.headers);
    without.delete('allow');
    expect(rowMismatch(row, { ...answer!, headers: without })).toBe(
      "Order of checks / another method on an operation's path (answered with the header `Allow: POST`): header allow: documented POST, answered (absent)",
    );
    const replayed = new Headers(answer!.headers);
    replayed.set('idempotent-replayed', 'true');
    expect(rowMismatch(row, { ...answer!, headers: replayed })).toMatch(
      /header idempotent-replayed: documented \(absent\), answered true$/,
    );
    const charset = new Headers(answer!.headers);
    charset.set('content-type', 'application/json; charset=utf-8');
    expect(rowMismatch(row, { ...answer!, headers: charset })).toMatch(
      /header content-type: documented application\/json, answered application\/json; charset=utf-8$/,
    );
  });

  it('a clause added to a row, or a probe taken away, is named', async () => {
    const row = edited('unknown or revoked', 'unknown, revoked or suspended').find((c) => c.case.includes('suspended'))!;
    const scenario = BY_ID[row.id]!;
    expect((await mismatches(row, scenario)).filter((problem) => problem.includes('no probe'))).toEqual([
      expect.stringContaining('no probe for the clause "suspended"'),
    ]);
    const lessened: Scenario = { run: async () => (await scenario.run()).filter((p) => !p.what.startsWith('revoked')) };
    expect(await mismatches(rows.find((r) => r.id === row.id)!, lessened)).toEqual([
      expect.stringContaining('no probe for the clause "revoked"'),
    ]);
  });

  it('a row added to the document without a scenario is named', () => {
    const added = edited(
      "| createUser-409  | the e-mail already exists in the caller's tool",
      "| createUser-400z | a password on the list of breached passwords | 400    | `user_password has appeared in a data breach: choose another.` |\n| createUser-409  | the e-mail already exists in the caller's tool",
    );
    expect(rowsWithoutScenario(added, BY_ID)).toEqual(['createUser / a password on the list of breached passwords']);
  });
});
