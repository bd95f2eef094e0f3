/**
 * docs/api-contract.md "Text is Unicode": a body whose bytes are not UTF-8, or a string in it holding
 * an unpaired surrogate, gets `400 Request body must be valid UTF-8 JSON.` and stores nothing; a
 * password is hashed exactly as sent. Over real HTTP to the local server (raw bytes on the wire), and
 * in process with the body as API Gateway delivers it for the stage's binary media types (base64).
 */

import { request } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MESSAGES } from '#contract/messages';
import { verifyPassword } from '#domain/passwords';
import { processStores } from '#store/stores';
import { userKey } from '#store/table-layout';
import { handler as createUser } from '../../functions/createUser/handler';
import { handler as resetUserPassword } from '../../functions/resetUserPassword/handler';
import { invoke } from '../support/events';
import { newOwner, startLocalServer, uniqueEmail } from '../support/local';

const { config, stores } = processStores();
const invalidUtf8 = { message: MESSAGES.invalidUtf8 };

let server: Awaited<ReturnType<typeof startLocalServer>>;
let owner: Awaited<ReturnType<typeof newOwner>>;
let ownerId: string;
beforeAll(async () => {
  server = await startLocalServer();
  owner = await newOwner('unicode');
  ownerId = (await stores.owners.findOwner(owner.ownerEmail))!.ownerId;
});
afterAll(() => server.close());

/** POSTs these exact bytes as the body. */
function postBytes(path: string, bytes: Buffer): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(bytes.length), 'x-api-key': owner.apiKey };
    const req = request(`${server.baseUrl}${path}`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** `{"user_email": email, <field>: <password bytes>}` with the password's bytes exactly as given. */
const bodyWith = (email: string, field: string, password: Buffer) =>
  Buffer.concat([Buffer.from(`{"user_email":"${email}","${field}":"`), password, Buffer.from('"}')]);

const CAFE_LATIN1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('-password')]);
const LONE_SURROGATE = Buffer.from('\\ud800-password-here');

async function profile(email: string) {
  const { Item } = await stores.client.send(
    new GetCommand({ TableName: config.usersTableName, Key: userKey(ownerId, email), ConsistentRead: true }),
  );
  return Item;
}

describe('over HTTP to the local server', () => {
  it.each([
    ['a byte that is not UTF-8 (0xE9 alone)', CAFE_LATIN1],
    ['an unpaired surrogate escape (\\ud800)', LONE_SURROGATE],
  ])('createUser with %s in the password: 400, and no user', async (_, password) => {
    const email = uniqueEmail('utf8-create');
    expect(await postBytes('/v1/createUser', bodyWith(email, 'user_password', password))).toEqual({ status: 400, body: invalidUtf8 });
    expect(await profile(email)).toBeUndefined();
  });

  it.each([
    ['a byte that is not UTF-8 (0xE9 alone)', CAFE_LATIN1],
    ['an unpaired surrogate escape (\\ud800)', LONE_SURROGATE],
  ])('resetUserPassword with %s: 400, and the stored hash unchanged', async (_, password) => {
    const email = uniqueEmail('utf8-reset');
    const created = await postBytes(
      '/v1/createUser',
      Buffer.from(JSON.stringify({ user_email: email, user_password: 'the first password' })),
    );
    expect(created.status).toBe(200);
    const before = (await profile(email))!.password_hash;
    expect(await postBytes('/v1/resetUserPassword', bodyWith(email, 'new_password', password))).toEqual({ status: 400, body: invalidUtf8 });
    expect((await profile(email))!.password_hash).toBe(before);
  });

  it('an unpaired surrogate in a key is refused too', async () => {
    const bytes = Buffer.from(`{"user_email":"${uniqueEmail('utf8-key')}","\\udc00":"x"}`);
    expect(await postBytes('/v1/createUser', bytes)).toEqual({ status: 400, body: invalidUtf8 });
  });

  it('a non-ASCII password is hashed exactly as sent: its UTF-8, nothing replaced', async () => {
    const email = uniqueEmail('utf8-ok');
    const password = 'café-pässwörd-😀-Ωmega';
    const response = await postBytes('/v1/createUser', Buffer.from(JSON.stringify({ user_email: email, user_password: password })));
    expect(response).toEqual({ status: 200, body: { user_email: email, user_password: password } });
    const hash = (await profile(email))!.password_hash as string;
    expect(await verifyPassword(hash, password)).toBe(true);
    expect(await verifyPassword(hash, password.replace('😀', '\ufffd'))).toBe(false);
  });
});

describe('in process, the body as API Gateway delivers it (base64, binary media types)', () => {
  it.each([
    ['a byte that is not UTF-8', CAFE_LATIN1],
    ['an unpaired surrogate escape', LONE_SURROGATE],
  ])('createUser with %s: 400, and no user', async (_, password) => {
    const email = uniqueEmail('utf8-event');
    expect(await invoke(createUser, bodyWith(email, 'user_password', password), owner.apiKey)).toEqual({ status: 400, body: invalidUtf8 });
    expect(await profile(email)).toBeUndefined();
  });

  it('a text body holding an unpaired surrogate (a hand-made event) is refused as well', async () => {
    const email = uniqueEmail('utf8-text');
    const text = `{"user_email":"${email}","new_password":"caf\ud800-password"}`;
    expect(await invoke(resetUserPassword, text, owner.apiKey)).toEqual({ status: 400, body: invalidUtf8 });
  });

  it('valid UTF-8 bytes: created, and the hash verifies exactly the string sent', async () => {
    const email = uniqueEmail('utf8-event-ok');
    const password = 'naïve-ünïcödé-密码-🔑';
    const response = await invoke(createUser, Buffer.from(JSON.stringify({ user_email: email, user_password: password })), owner.apiKey);
    expect(response.status).toBe(200);
    expect(await verifyPassword((await profile(email))!.password_hash as string, password)).toBe(true);
  });
});
