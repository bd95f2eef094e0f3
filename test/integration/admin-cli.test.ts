/** `npm run admin -- ...` against DynamoDB Local: one line of JSON on stdout, errors on stderr. */

import { describe, expect, it } from '@jest/globals';
import { digestApiKey } from '../../functions/shared/api-keys';
import { dependencies } from '../../functions/shared/pipeline';
import { uniqueEmail } from '../support/local';
import { runScript } from '../support/processes';

const env: NodeJS.ProcessEnv = { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' };
const admin = (...args: string[]) => runScript('admin/cli.ts', args, env);

describe('admin CLI', () => {
  it('manages an owner and its keys', async () => {
    const email = uniqueEmail('cli-owner');

    const created = await admin('create-owner', email.toUpperCase());
    expect(created.code).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const first = JSON.parse(lines[0]!);
    expect(Object.keys(first)).toEqual(['owner_email', 'key_id', 'api_key']);
    expect(first).toEqual({
      owner_email: email,
      key_id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      api_key: expect.stringMatching(/^wlk_[A-Za-z0-9_-]{43}$/),
    });
    expect((await dependencies.repository.findApiKey(digestApiKey(first.api_key)))?.ownerEmail).toBe(email);

    const again = await admin('create-owner', email);
    expect(again.code).not.toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('already exists');

    const issued = await admin('issue-key', email);
    expect(issued.code).toBe(0);
    const second = JSON.parse(issued.stdout);
    expect(second.owner_email).toBe(email);
    expect(second.api_key).not.toBe(first.api_key);

    const revoked = await admin('revoke-key', second.key_id);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ key_id: second.key_id, owner_email: email, revoked: true });

    const listed = await admin('list-keys', email);
    expect(listed.code).toBe(0);
    const keys = JSON.parse(listed.stdout) as { key_id: string; revoked_at: string | null }[];
    expect(keys.map((k) => k.key_id).sort()).toEqual([first.key_id, second.key_id].sort());
    expect(keys.find((k) => k.key_id === second.key_id)!.revoked_at).toEqual(expect.any(String));
    expect(keys.find((k) => k.key_id === first.key_id)!.revoked_at).toBeNull();
    expect(listed.stdout).not.toContain('wlk_');
  }, 60_000);

  it('refuses bad usage and unknown targets on stderr with a non-zero exit', async () => {
    for (const args of [
      [],
      ['create-owner'],
      ['frobnicate', 'x'],
      ['issue-key', uniqueEmail('nobody')],
      ['revoke-key', 'key_0000000000000000'],
    ]) {
      const result = await admin(...args);
      expect([args, result.code === 0, result.stdout]).toEqual([args, false, '']);
      expect(result.stderr.trim()).not.toBe('');
    }
  }, 60_000);

  it('finds the local engine as npm start does: DYNAMODB_PORT when DYNAMODB_ENDPOINT is unset', async () => {
    const { DYNAMODB_ENDPOINT: endpoint, ...rest } = env;
    const email = uniqueEmail('cli-port');
    const created = await runScript('admin/cli.ts', ['create-owner', email], { ...rest, DYNAMODB_PORT: new URL(endpoint!).port });
    expect(created.code).toBe(0);
    expect((await dependencies.repository.findApiKey(digestApiKey(JSON.parse(created.stdout).api_key)))?.ownerEmail).toBe(email);

    const bad = await runScript('admin/cli.ts', ['list-keys', email], { ...rest, DYNAMODB_PORT: 'abc' });
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([1, '', 'DYNAMODB_PORT must be a port number from 1 to 65535, got "abc".\n']);
  }, 60_000);
});
