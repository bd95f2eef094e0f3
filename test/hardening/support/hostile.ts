/** fast-check arbitraries for hostile requests: bodies, content types, API keys and headers. */

import fc from 'fast-check';
import { SHAPES } from '#contract/operations';
import { OPERATIONS, type Operation } from './contract';

/** The keys a hostile caller may hold: a valid one, a revoked one, one whose owner account is gone. */
export interface Keys {
  readonly valid: string;
  readonly revoked: string;
  readonly orphaned: string;
}

export interface HostileRequest {
  readonly operation: Operation;
  /** Header name/value pairs in order (duplicates allowed); absent when `null` (handlers only). */
  readonly headers: readonly (readonly [string, string])[] | null;
  /** The body as bytes on the wire (latin1 string of bytes for binary bodies). */
  readonly body: string | null;
  /** The body is binary (sent as latin1 bytes). */
  readonly binary: boolean;
  /** API Gateway's flag: the body is base64 (handlers only). */
  readonly isBase64Encoded: boolean;
}

const FIELDS = ['user_email', 'user_password', 'new_password', 'should_reset_password'];
const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];

/** Characters an HTTP header value may carry (node refuses the rest before sending). */
const headerChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c));
const headerValue = (maxLength: number) => fc.string({ unit: headerChar, maxLength });

const huge = fc
  .tuple(fc.integer({ min: 300, max: 20_000 }), fc.constantFrom('a', 'é', '😀', '\u0000', ' ', '\\', '"', '\u202e'))
  .map(([n, c]) => c.repeat(n));

const emailish = fc.oneof(
  fc.emailAddress(),
  fc.emailAddress().map((e) => `  ${e.toUpperCase()}\t`),
  fc.constantFrom(
    'a@b',
    '@example.com',
    'a@',
    'a b@example.com',
    'ünïcödé@exämple.com',
    'a@example.com\u0000',
    `${'x'.repeat(250)}@e.co`,
    'A@EXAMPLE.COM',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => `${s}@example.com`),
);

const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: emailish },
  { weight: 3, arbitrary: fc.string({ minLength: 8, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('true', 'false', true, false, null, 0, -1, 1e308, '', ' ', 'TRUE', [], {}, ['a@b.co']) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double()) },
  { weight: 1, arbitrary: huge },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS).map((k) => JSON.parse(`{"${k}": {"polluted": true}}`) as unknown) },
);

const fieldName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, 'USER_EMAIL', 'user_email ', '', 'userEmail') },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
);

/** A JSON object written out by hand, so `__proto__` and duplicate keys reach the parser as sent. */
const objectText = fc
  .array(fc.tuple(fieldName, value), { maxLength: 6 })
  .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`);

const nasty = fc.constantFrom(
  '',
  'null',
  '[]',
  '{}',
  '{',
  '"user_email"',
  '{"user_email":',
  '{"a":1}{"b":2}',
  '\uFEFF{}',
  '{"user_email":"a@b.co"} trailing',
  '{"user_email":"a@b.co",}',
  "{'user_email':'a@b.co'}",
  '{"user_email":"\\ud800@b.co"}',
  '['.repeat(20_000) + ']'.repeat(20_000),
  `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
  '{"__proto__":{"isAdmin":true},"user_email":"proto@example.com"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
);

/** Plausible values per field, so requests get past validation to storage. */
const PLAUSIBLE_FIELDS: Record<string, fc.Arbitrary<unknown>> = {
  user_email: emailish,
  user_password: fc.string({ unit: 'grapheme', minLength: 8, maxLength: 30 }),
  new_password: fc.string({ unit: 'grapheme', minLength: 8, maxLength: 30 }),
  should_reset_password: fc.constantFrom('true', 'false', true, false),
};
/** The operation's own fields (its shape in the registry) with plausible values, its required ones always present. */
const plausible = (operation: Operation) => {
  const { properties, required } = SHAPES[operation];
  const fields = Object.fromEntries(
    Object.keys(properties).map((field) => {
      const arbitrary = PLAUSIBLE_FIELDS[field];
      if (!arbitrary) throw new Error(`No plausible value for ${operation}'s field ${field}: add one to PLAUSIBLE_FIELDS`);
      return [field, arbitrary];
    }),
  );
  return fc.record(fields, { requiredKeys: required }).map((body) => JSON.stringify(body));
};

const bodyText = (operation: Operation) =>
  fc.oneof(
    { weight: 6, arbitrary: plausible(operation) },
    { weight: 12, arbitrary: objectText },
    { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 2, arbitrary: nasty },
    { weight: 1, arbitrary: objectText.map((text) => `${text.slice(0, -1)},"pad":"${'x'.repeat(16 * 1024)}"}`) },
  );

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json;charset=UTF-8',
      'application/json; charset=utf-8; boundary=x',
      'application/jsonp',
      'application/json-patch+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=----x',
      '*/*',
      '',
      ' ',
    ),
  },
  { weight: 1, arbitrary: headerValue(40) },
);

function apiKey(keys: Keys, http: boolean) {
  return fc.oneof(
    { weight: 48, arbitrary: fc.constant(keys.valid) },
    { weight: 1, arbitrary: fc.constantFrom(keys.revoked, keys.orphaned) },
    { weight: 1, arbitrary: fc.constantFrom('', 'null', 'undefined', 'wlk_', keys.valid.toUpperCase()) },
    { weight: 1, arbitrary: fc.nat(keys.valid.length).map((n) => keys.valid.slice(0, n)) },
    { weight: 1, arbitrary: fc.nat(keys.valid.length).map((n) => keys.valid.slice(n)) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `wlk_${Buffer.from(b).toString('base64url')}`) },
    { weight: 1, arbitrary: http ? headerValue(60) : fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: http ? headerValue(8_000).map((s) => s.padEnd(2_000, 'k')) : huge },
  );
}

const keyHeaderName = fc.constantFrom('x-api-key', 'X-API-Key', 'X-Api-Key', 'X-API-KEY');

function extraHeaders(http: boolean) {
  const name = http
    ? fc.constantFrom('X-Api-Key', 'Content-Type', '__proto__', 'constructor', 'toString', 'X-Forwarded-For', 'Accept', 'x-amz-target')
    : fc.oneof(
        fc.constantFrom('X-Api-Key', 'Content-Type', '__proto__', 'constructor', 'Content-Length', 'Transfer-Encoding'),
        fc.string({ minLength: 1, maxLength: 20 }),
      );
  return fc.array(fc.tuple(name, http ? headerValue(60) : fc.string({ maxLength: 60 })), { maxLength: 2 });
}

/** A hostile request to one of the operations; `http` keeps it sendable over real HTTP. */
export function hostileRequest(keys: Keys, options: { http: boolean }): fc.Arbitrary<HostileRequest> {
  const { http } = options;
  return fc.constantFrom(...OPERATIONS).chain((operation) => request(operation, keys, http));
}

function request(operation: Operation, keys: Keys, http: boolean): fc.Arbitrary<HostileRequest> {
  const body = fc.oneof(
    { weight: 9, arbitrary: bodyText(operation).map((text) => ({ body: text as string | null, binary: false })) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ body: Buffer.from(b).toString('latin1') as string | null, binary: true })),
    },
    { weight: http ? 0 : 1, arbitrary: fc.constant({ body: null, binary: false }) },
  );
  return fc
    .record({
      key: fc.option(fc.tuple(keyHeaderName, apiKey(keys, http)), { freq: 12 }),
      contentType: contentType,
      extra: extraHeaders(http),
      body,
      base64: http ? fc.constant(0) : fc.integer({ min: 0, max: 9 }),
      noHeaders: http ? fc.constant(false) : fc.integer({ min: 0, max: 39 }).map((n) => n === 0),
    })
    .map(({ key, contentType, extra, body, base64, noHeaders }) => {
      const headers: [string, string][] = [];
      if (key) headers.push([key[0], key[1]]);
      if (contentType !== undefined) headers.push(['Content-Type', contentType]);
      headers.push(...extra);
      // Behind API Gateway a base64 body is any bytes; here: the text, or garbage that is not base64.
      const isBase64Encoded = base64 >= 8 && body.body !== null;
      const encoded =
        isBase64Encoded && body.body !== null
          ? base64 === 8
            ? Buffer.from(body.body, 'latin1').toString('base64')
            : `${body.body}%%not base64`
          : body.body;
      return { operation, headers: noHeaders ? null : headers, body: encoded, binary: body.binary, isBase64Encoded };
    });
}
