/** The Lambda bundles' stand-in for the SDK's default credential chain. */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from '@jest/globals';
import { defaultProvider } from '../../lib/bundling/env-credentials';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('env-credentials', () => {
  it("gives a DynamoDB client the execution role's credentials from Lambda's environment", async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
    const client = new DynamoDBClient({ region: 'eu-west-1', credentialDefaultProvider: defaultProvider });
    const credentials = await client.config.credentials();
    expect(credentials).toMatchObject({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('fails plainly, without looking anywhere else, when the environment has none', async () => {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });
});
