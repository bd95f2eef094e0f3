/**
 * One reading of a JSON body: platform/json-names.ts (a member name given twice, shared by the API's
 * body step and the import's lines), the body step itself in process (http/middleware/parse-body.ts:
 * the duplicate row after the others of step 3), and how messages echo a member name (cut at 64
 * code points). Over HTTP: test/http/contract-rows.test.ts and test/http/password-policy.test.ts.
 */

import { describe, expect, it } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import fc from 'fast-check';
import { duplicateParameter, echoedName, MESSAGES, unknownParameter } from '#contract/messages';
import { parseBody } from '#http/middleware/parse-body';
import { duplicateName } from '#platform/json-names';

describe('duplicateName', () => {
  it('finds the first name the object gives twice, decoded, at its own level only', () => {
    expect(duplicateName('{"a":1,"b":2,"a":3,"b":4}')).toBe('a');
    expect(duplicateName('{"user_email":"x","\\u0075ser_email":"y"}')).toBe('user_email');
    expect(duplicateName('{"a\\"":1,"a\\\\":2,"a\\\\":3}')).toBe('a\\');
    expect(duplicateName('{"x":"\\\\","y":"}\\",{","x":1}')).toBe('x');
    expect(duplicateName('{"a":{"b":1,"b":2},"c":[{"a":1},{"a":2}],"d":"a","e":["a","a"]}')).toBeUndefined();
    expect(duplicateName('{ "a" : "b" , "b" : "a" }')).toBeUndefined();
    expect(duplicateName('{}')).toBeUndefined();
  });

  it('agrees with JSON.parse on any object: a duplicate exactly when a name repeats', () => {
    const name = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('user_email', 'a"b', 'a\\', '\u2028'));
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 8 }), fc.boolean(), (pairs, escaped) => {
        // Written by hand, as another system's export may be: names may repeat, and may be escaped otherwise.
        const written = pairs.map(([key, v]) => {
          const quoted = escaped
            ? `"${key
                .split('')
                .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
                .join('')}"`
            : JSON.stringify(key);
          return `${quoted}:${JSON.stringify(v)}`;
        });
        const text = `{${written.join(',')}}`;
        expect(typeof JSON.parse(text)).toBe('object');
        const seen = new Set<string>();
        const first = pairs.map(([key]) => key).find((key) => seen.has(key) || !seen.add(key));
        expect(duplicateName(text)).toBe(first);
      }),
    );
  });
});

/** The body step's answer to a raw body: the parsed object, or the refusal's status and message. */
function bodyStep(raw: string | Buffer, contentType = 'application/json'): unknown {
  const event = {
    body: Buffer.isBuffer(raw) ? raw.toString('base64') : Buffer.from(raw).toString('base64'),
    isBase64Encoded: true,
    headers: { 'content-type': contentType },
  } as unknown as APIGatewayProxyEvent;
  try {
    (parseBody().before as (request: { event: APIGatewayProxyEvent }) => void)({ event });
    return { parsed: event.body };
  } catch (error) {
    const { statusCode, message } = error as { statusCode: number; message: string };
    return [statusCode, message];
  }
}

describe('the body step (parse-body)', () => {
  it('refuses a member named twice, first duplicate in the body order, names decoded', () => {
    expect(bodyStep('{"user_email":"a@example.com","user_password":"one long password","user_password":"another"}')).toEqual([
      400,
      'Duplicate parameter: user_password.',
    ]);
    expect(bodyStep('{"b":1,"a":1,"a":2,"b":2}')).toEqual([400, 'Duplicate parameter: a.']);
    expect(bodyStep('{"user_email":"x","\\u0075ser_email":"y"}')).toEqual([400, 'Duplicate parameter: user_email.']);
    expect(bodyStep('{"__proto__":1,"__proto__":2}')).toEqual([400, 'Duplicate parameter: __proto__.']);
  });

  it('answers the rows before it first: size, content type, UTF-8, JSON object', () => {
    expect(bodyStep(`{"a":1,"a":2,"p":"${'x'.repeat(16 * 1024)}"}`)).toEqual([413, MESSAGES.bodyTooLarge]);
    expect(bodyStep('{"a":1,"a":2}', 'text/plain')).toEqual([415, MESSAGES.unsupportedMediaType]);
    expect(bodyStep(Buffer.concat([Buffer.from('{"a":1,"a":"'), Buffer.of(0xe9), Buffer.from('"}')]))).toEqual([400, MESSAGES.invalidUtf8]);
    expect(bodyStep('{"a":1,"a":"\\ud800"}')).toEqual([400, MESSAGES.invalidUtf8]);
    expect(bodyStep('{"a":1,"a":2')).toEqual([400, MESSAGES.notAnObject]);
  });

  it('lets a body with unique names through, nested repeats included (they are values, held by validation)', () => {
    expect(bodyStep('{"user_email":"a@example.com","x":{"y":1,"y":2}}')).toEqual({ parsed: { user_email: 'a@example.com', x: { y: 2 } } });
  });

  it('echoes a long name (8 KB, twice in a body under 16 KiB) as its first 64 code points and an ellipsis', () => {
    const name = `\u{1F600}${'n'.repeat(8_000)}`;
    expect(bodyStep(`{"${name}":1,"${name}":2}`)).toEqual([400, `Duplicate parameter: \u{1F600}${'n'.repeat(63)}\u2026.`]);
  });
});

describe('echoedName', () => {
  it('keeps a name of up to 64 code points; cuts a longer one at 64 code points and adds an ellipsis', () => {
    expect(echoedName('a'.repeat(64))).toBe('a'.repeat(64));
    expect(echoedName('a'.repeat(65))).toBe(`${'a'.repeat(64)}\u2026`);
    expect(echoedName('\u{1F600}'.repeat(64))).toBe('\u{1F600}'.repeat(64));
    expect(echoedName('\u{1F600}'.repeat(65))).toBe(`${'\u{1F600}'.repeat(64)}\u2026`);
    expect(echoedName('')).toBe('');
    expect(unknownParameter('x'.repeat(16 * 1024))).toBe(`Unknown parameter: ${'x'.repeat(64)}\u2026.`);
    expect(duplicateParameter('role')).toBe('Duplicate parameter: role.');
  });

  it('never splits a surrogate pair, whatever the name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 120 }), (name) => {
        const echoed = echoedName(name);
        expect(echoed.isWellFormed()).toBe(true);
        const cut = [...name].length > 64;
        expect([...echoed].length).toBe(cut ? 65 : [...name].length);
        expect(name.startsWith(cut ? echoed.slice(0, -1) : echoed)).toBe(true);
      }),
    );
  });
});
