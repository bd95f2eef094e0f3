import { describe, expect, it } from '@jest/globals';
import { CATALOGUE, OPERATIONS } from '#contract/operations';
import { localEngine, portFromEnv } from '#store/local-engine';
import { functionTimeoutMs } from '../../local/lambda-runtime';

describe('localEngine: where npm start and the admin CLI find DynamoDB', () => {
  it('DYNAMODB_ENDPOINT first, then DYNAMODB_PORT on 127.0.0.1, then 8000', () => {
    expect(localEngine({ DYNAMODB_ENDPOINT: 'http://db.internal:4566', DYNAMODB_PORT: '9000' })).toEqual({
      endpoint: 'http://db.internal:4566',
      port: 4566,
      external: true,
    });
    expect(localEngine({ DYNAMODB_PORT: '9000' })).toEqual({ endpoint: 'http://127.0.0.1:9000', port: 9000, external: false });
    expect(localEngine({})).toEqual({ endpoint: 'http://127.0.0.1:8000', port: 8000, external: false });
    expect(localEngine({ DYNAMODB_ENDPOINT: '', DYNAMODB_PORT: '' })).toEqual({
      endpoint: 'http://127.0.0.1:8000',
      port: 8000,
      external: false,
    });
  });

  it.each(['abc', '0', '65536', '80.5', '-1', ' 80', '0x50'])('refuses DYNAMODB_PORT=%j in one line naming it', (value) => {
    expect(() => localEngine({ DYNAMODB_PORT: value })).toThrow(`DYNAMODB_PORT must be a port number from 1 to 65535, got "${value}".`);
  });

  it('refuses a DYNAMODB_ENDPOINT that is not an http(s) URL', () => {
    for (const value of ['localhost:8000', 'ftp://127.0.0.1:8000']) {
      expect(() => localEngine({ DYNAMODB_ENDPOINT: value })).toThrow(
        `DYNAMODB_ENDPOINT must be an http:// or https:// URL, got "${value}".`,
      );
    }
  });

  it('reads any port variable the same way', () => {
    expect(portFromEnv('PORT', 3000, {})).toBe(3000);
    expect(portFromEnv('PORT', 3000, { PORT: '65535' })).toBe(65535);
    expect(() => portFromEnv('PORT', 3000, { PORT: 'abc' })).toThrow('PORT must be a port number from 1 to 65535, got "abc".');
  });
});

const FUNCTION_TIMEOUT_SECONDS = Object.fromEntries(OPERATIONS.map((operation) => [operation, CATALOGUE[operation].timeoutSeconds]));

describe('function timeouts', () => {
  it('the local Lambda context gets each operation its deployed timeout', () => {
    for (const operation of OPERATIONS) expect(functionTimeoutMs(operation)).toBe(FUNCTION_TIMEOUT_SECONDS[operation]! * 1000);
    // A name that is no operation gets the shortest of them.
    expect(functionTimeoutMs('test')).toBe(Math.min(...Object.values(FUNCTION_TIMEOUT_SECONDS)) * 1000);
  });
});
