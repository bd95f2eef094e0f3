/** The API publishes its OpenAPI document without a key: locally and on every deployed stage. */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildOpenApiDocument, DEFAULT_BASE_URL, OPENAPI_PATH, STAGE_SERVER_NOTE, serializeOpenApiDocument } from '../../codegen/openapi';
import { openTarget, type Target } from '../support/target';

let target: Target;
beforeAll(async () => {
  target = await openTarget();
});
afterAll(() => target.close());

describe('GET {base_url}/openapi.json', () => {
  it("is the committed openapi.json, byte for byte, but for its default server: the local server's address, or the stage's URL", async () => {
    const response = await fetch(`${target.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const committed = readFileSync(OPENAPI_PATH, 'utf8');
    // Only the default server differs: the local server's own port, or a stage naming itself (its URL as
    // API Gateway fills it in, with a note).
    const note = process.env.TEST_TARGET === 'staging' ? STAGE_SERVER_NOTE : undefined;
    expect(await response.text()).toBe(serializeOpenApiDocument(buildOpenApiDocument(undefined, target.baseUrl, note)));
    expect(serializeOpenApiDocument(buildOpenApiDocument(undefined, DEFAULT_BASE_URL))).toBe(committed);
  });
});
