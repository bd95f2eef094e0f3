/** The API publishes its OpenAPI document without a key: locally and on every deployed stage. */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPENAPI_PATH } from '../../codegen/openapi';
import { openTarget, type Target } from '../support/target';

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

describe('GET {base_url}/openapi.json', () => {
  it('is the committed openapi.json, byte for byte: its server is relative to where it is served, so nothing of the host goes in', async () => {
    const response = await fetch(`${target.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toBe(readFileSync(OPENAPI_PATH, 'utf8'));
  });
});
