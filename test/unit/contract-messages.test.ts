/**
 * Every message docs/api-contract.md quotes, in its tables and in its prose (`Bad Request`,
 * `400 Idempotency-Key is invalid.`, `{"message":"Too Many Requests"}`), is one the code can answer,
 * and every message the code can answer is quoted there: the catalogue
 * (functions/shared/contract/messages.ts, its functions as templates) and any `{"message":"..."}`
 * written elsewhere in runtime, local or infrastructure code (API Gateway's gateway responses).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import * as sharedMessages from '#contract/messages';
import { DEFINITIONS } from '#contract/operations';
import { usageCommands } from '../../admin/command-usage';
import { KEY_USAGE } from '../../admin/key-commands';
import { POLICY_USAGE } from '../../admin/policy-commands';
import { REAPPLY_USAGE } from '../../admin/reapply-deletions';
import { REPLAY_USAGE } from '../../admin/replay-events';
import { TRANSFER_USAGE } from '../../admin/transfer-commands';
import { CONTRACT_DOC, catalogue, messageProblems, quotedMessages } from '../support/contract-doc';
import { ROOT } from '../support/processes';

/** The TypeScript files of the folders whose code answers requests: functions/ (not generated), local/, lib/. */
function answeringSources(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'generated') walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const dir of ['functions', 'local', 'lib']) walk(dir);
  return files.map((file) => readFileSync(join(root, file), 'utf8'));
}

/** The admin commands (`list-keys <email>` in prose is a command, not a message). */
const ADMIN_COMMANDS = usageCommands([KEY_USAGE, POLICY_USAGE, TRANSFER_USAGE, REAPPLY_USAGE, REPLAY_USAGE].join('\n'));
const document = readFileSync(CONTRACT_DOC, 'utf8');
/** The messages: the shared ones (messages.ts, its functions as templates) and each operation module's own. */
const messages = { ...sharedMessages, operations: Object.values(DEFINITIONS).map((definition) => definition.messages) };
const sources = answeringSources(ROOT);

describe("docs/api-contract.md's messages and the code's, both ways", () => {
  it('every message quoted (rows and prose) is one the code answers; every message the code answers is quoted', () => {
    const quoted = quotedMessages(document, ADMIN_COMMANDS);
    expect(quoted.filter((message) => message.in === 'prose').length).toBeGreaterThanOrEqual(15);
    expect(messageProblems(quoted, catalogue(messages, sources))).toEqual([]);
  });

  it('a message changed in the prose fails (`Too Many Requests` written `Too many requests`)', () => {
    const edited = document.replace('answered `429 {"message":"Too Many Requests"}`', 'answered `429 {"message":"Too many requests"}`');
    expect(edited).not.toBe(document);
    expect(messageProblems(quotedMessages(edited, ADMIN_COMMANDS), catalogue(messages, sources))).toEqual([
      expect.stringMatching(/^docs\/api-contract\.md:\d+: `Too many requests` \(prose\) is no message the code answers$/),
    ]);
  });

  it('a message quoted only in prose changed (`User not found.` without its full stop)', () => {
    const edited = document.replace('a 404\n`User not found.`', 'a 404\n`User not found`');
    expect(edited).not.toBe(document);
    expect(messageProblems(quotedMessages(edited, ADMIN_COMMANDS), catalogue(messages, sources))).toEqual([
      expect.stringMatching(/^docs\/api-contract\.md:\d+: `User not found` \(prose\) is no message the code answers$/),
    ]);
  });

  it('a message changed in the code, a message the code gains, a gateway response changed', () => {
    const changed = { ...messages, MESSAGES: { ...messages.MESSAGES, userNotFound: 'User not found' } };
    expect(messageProblems(quotedMessages(document, ADMIN_COMMANDS), catalogue(changed, sources))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/`User not found\.` \(row\) is no message the code answers$/),
        'the code answers `User not found`, which docs/api-contract.md does not list',
      ]),
    );
    const gained = { ...messages, suspendedParameter: (name: string) => `Suspended parameter: ${name}.` };
    expect(messageProblems(quotedMessages(document, ADMIN_COMMANDS), catalogue(gained, sources))).toEqual([
      'the code answers `Suspended parameter: <arg0>.`, which docs/api-contract.md does not list',
    ]);
    const gateway = sources.map((source) => source.replace('{"message":"Method Not Allowed"}', '{"message":"Method not allowed"}'));
    expect(messageProblems(quotedMessages(document, ADMIN_COMMANDS), catalogue(messages, gateway))).toEqual([
      'the code answers `Method not allowed`, which docs/api-contract.md does not list',
    ]);
  });
});
