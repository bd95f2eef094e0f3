/**
 * A throwaway fourth operation, getUser (a read of one user), added to a scratch copy of the
 * repository by the hand-edited steps of CONTRIBUTING's "Adding an operation" and nothing else
 * (test/processes/add-operation.test.ts). It never reaches the repository itself.
 */

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const THROWAWAY = 'getUser';

const MODULE = `/** getUser: one of the caller's users, read. */

import { defineOperation, EXAMPLE_USER_EMAIL, GIVEN_USER_EXISTS, notFoundCase } from '../define-operation';
import { MESSAGES } from '../messages';
import { row, USER_EMAIL_BODY, unknownRow } from '../schemas';

const messages = {
  getFailed: 'Failed to read user.',
} as const;

const validBody = { user_email: EXAMPLE_USER_EMAIL };

export const getUser = defineOperation({
  name: 'getUser',
  entry: {
    failureMessage: messages.getFailed,
    successOutcome: 'found',
    timeoutSeconds: 10,
    usersTableActions: ['Query'],
    memoryMb: 1536,
    summary: 'Read a user',
    description: "Reads one user of the caller's white-label tool.",
  },
  shape: USER_EMAIL_BODY,
  policyFields: [],
  rows: () => [
    row(['user_email'], ['missing'], MESSAGES.missingParameters),
    unknownRow,
    row(['user_email'], ['invalid'], MESSAGES.userEmailInvalid),
  ],
  messages,
  docs: {
    validBody,
    success: {
      name: 'found',
      status: 200,
      summary: 'The user, its e-mail as stored',
      given: GIVEN_USER_EXISTS,
      request: validBody,
      response: { user_email: EXAMPLE_USER_EMAIL },
    },
    refusals: [notFoundCase(MESSAGES.userNotFound, validBody)],
    successSchema: {
      name: 'FoundUser',
      schema: {
        type: 'object',
        required: ['user_email'],
        properties: { user_email: { type: 'string', format: 'email', description: 'The e-mail as stored: trimmed and lower-cased.' } },
        additionalProperties: false,
      },
    },
  },
});
`;

const HANDLER = `import * as compiled from '#contract/generated/validators/getUser';
import { MESSAGES } from '#contract/messages';
import { getUser as contract } from '#contract/operations/getUser';
import { type GetUserInput, getUser } from '#domain/users';
import { ApiError } from '#http/errors';
import { operation } from '#http/pipeline';
import { jsonResponse } from '#http/responses';

export const handler = operation<GetUserInput>({
  contract,
  compiled,
  run: async ({ body, owner, stores }) => {
    const outcome = await getUser(stores.users, owner, body);
    if (outcome === 'not_found') throw new ApiError(404, MESSAGES.userNotFound);
    return jsonResponse(200, outcome);
  },
});
`;

const DOMAIN = `
export interface GetUserInput {
  user_email: string;
}

/** Reads a user of the owner's tool: its e-mail as stored. */
export async function getUser(store: UserStore, owner: Owner, input: GetUserInput): Promise<{ user_email: string } | 'not_found'> {
  const email = normalizeEmail(input.user_email);
  const { profileExists } = await store.listUserItems(owner.ownerId, email);
  return profileExists ? { user_email: email } : 'not_found';
}
`;

const CONTRACT_SECTION = `## getUser

\`POST {base_url}/v1/getUser\` reads a user of the caller's tool. \`user_email\` is required.

| id           | case                                                                               | status | body                                |
| ------------ | ---------------------------------------------------------------------------------- | ------ | ----------------------------------- |
| getUser-200  | found                                                                              | 200    | \`{"user_email": <e-mail as stored>}\` |
| getUser-400a | \`user_email\` absent, null or empty                                                 | 400    | \`Missing required parameters.\`      |
| getUser-400b | a field other than \`user_email\`                                                    | 400    | \`Unknown parameter: <name>.\`        |
| getUser-400c | \`user_email\` not a string holding a valid e-mail address of at most 254 characters | 400    | \`user_email is invalid.\`            |
| getUser-404  | no such user in the caller's tool                                                  | 404    | \`User not found.\`                   |
| getUser-500  | storage failure, or any failure not listed                                         | 500    | \`Failed to read user.\`              |

`;

const SCENARIOS = `  getUser: {
    'getUser-200': {
      run: async () => {
        const email = await existingUser('row-get');
        return [probe('a user of the tool', await A('/v1/getUser', { user_email: email.toUpperCase() }), { '<e-mail as stored>': email })];
      },
    },
    'getUser-400a': {
      run: each('/v1/getUser', { absent: {}, null: { user_email: null }, empty: { user_email: '  ' } }),
    },
    'getUser-400b': {
      run: async () => [probe('role', await A('/v1/getUser', { user_email: 'a@example.com', role: 'x' }), { '<name>': 'role' })],
    },
    'getUser-400c': {
      run: each('/v1/getUser', { 'not a string': { user_email: ['a@example.com'] } }),
    },
    'getUser-404': {
      run: async () => [
        probe('nobody', await A('/v1/getUser', { user_email: suite.api.email('nobody') })),
        probe("another owner's user", await suite.api.asB('/v1/getUser', { user_email: await existingUser('row-get-tenant') })),
      ],
    },
    'getUser-500': {
      localOnly: true,
      elsewhere: { 'any failure not listed': ANY_FAILURE },
      run: async () => {
        const email = await existingUser('row-get-500');
        return [probe('storage failure: Query refused', await withStorageFault('Query', () => A('/v1/getUser', { user_email: email })))];
      },
    },
  },
`;

const CURL = `
curl -s -X POST http://127.0.0.1:3000/v1/getUser \\
  -H 'Content-Type: application/json' -H "X-API-Key: $API_KEY" \\
  -d '{"user_email": "jane@example.com"}'
# {"user_email":"jane@example.com"}
`;

/** Replaces the one place \`anchor\` occurs in \`text\` (a step that cannot find its place fails loudly). */
function insertAt(text: string, anchor: string, insert: (anchor: string) => string, file: string): string {
  const at = text.indexOf(anchor);
  if (at < 0 || text.indexOf(anchor, at + 1) >= 0) throw new Error(`${file}: expected "${anchor}" exactly once`);
  return text.slice(0, at) + insert(anchor) + text.slice(at + anchor.length);
}

/**
 * The hand-edited steps, by number as CONTRIBUTING lists them: each writes or edits one file of the
 * copy at `root`. Returns the files it wrote.
 */
export function addThrowawayOperation(root: string): string[] {
  const written: string[] = [];
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
    written.push(file);
  };
  const edit = (file: string, change: (text: string) => string) => write(file, change(readFileSync(join(root, file), 'utf8')));

  // 1. The operation's module.
  write('functions/shared/contract/operations/getUser.ts', MODULE);
  // 2. The registry: imported, and added to DEFINITIONS (route order: last).
  edit('functions/shared/contract/operations.ts', (text) =>
    insertAt(
      insertAt(
        text,
        "import { deleteUser } from './operations/deleteUser';\n",
        (a) => `${a}import { getUser } from './operations/getUser';\n`,
        'operations.ts',
      ),
      'resetUserPassword, deleteUser }',
      () => 'resetUserPassword, deleteUser, getUser }',
      'operations.ts',
    ),
  );
  // 3. The handler.
  write('functions/getUser/handler.ts', HANDLER);
  // 4. The domain function (the port already offers the read it needs).
  edit('functions/shared/domain/users.ts', (text) => text + DOMAIN);
  // 5. The contract's section.
  edit('docs/api-contract.md', (text) => insertAt(text, '## E-mail addresses\n', (a) => CONTRACT_SECTION + a, 'api-contract.md'));
  // 6. A scenario per row.
  edit('test/http/contract-rows.test.ts', (text) =>
    insertAt(text, "  'Edge limits (deployed stages)': {\n", (a) => SCENARIOS + a, 'contract-rows.test.ts'),
  );
  // 7. The README's curl example.
  edit('README.md', (text) =>
    insertAt(text, '# {"message":"User and all associated data deleted successfully."}\n', (a) => a + CURL, 'README.md'),
  );
  return written;
}
