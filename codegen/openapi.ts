/**
 * The OpenAPI 3.1 document, generated from the very schemas and messages the
 * pipeline validates and answers with. `npm run openapi` (scripts/openapi.ts) writes
 * `openapi.json`; the stack and the local server serve what this module builds.
 *
 * Every documented example is a pair: a request and the response it gets, so the
 * replay test can send one and expect the other. A request that conforms to the
 * request schema is a request example under the response example's name; one that
 * breaks it (the 400 and 413 cases) cannot be a request example, since request
 * examples must conform, so it rides on its response example as `x-request-body`.
 * Examples name only `jane@example.com` (a user) and `owner@example.com` (the
 * caller's own white-label account), which keeps them easy to isolate.
 */

import { fileURLToPath } from 'node:url';
import { type Case, EXAMPLE_OWNER_EMAIL, EXAMPLE_USER_EMAIL, type Json, type JsonObject } from '#contract/define-operation';
import { duplicateParameter, ECHOED_NAME_CODE_POINTS, MESSAGES } from '#contract/messages';
import { CATALOGUE, DEFINITIONS, OPERATIONS, type OperationName, operationPath, operationSchemas } from '#contract/operations';
import type { Row } from '#contract/schemas';
import { MAX_BODY_BYTES } from '#http/middleware/parse-body';
import { REPLAYED_HEADER } from '#http/responses';
import { DEFAULT_PASSWORD_POLICY, type PasswordPolicy } from '#platform/config';

/** Where `npm run openapi` writes the document. */
export const OPENAPI_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));

export { EXAMPLE_OWNER_EMAIL, EXAMPLE_USER_EMAIL, type JsonObject };

/** What the document adds to an operation's catalogue entry (path, summary, description, failure message). */
interface OperationText {
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly requestSchema: string;
  readonly failureMessage: string;
  /** A request that passes validation; error cases start from it. */
  readonly validBody: JsonObject;
}

/** An operation's request schema component: `createUser` → `CreateUserRequest`. */
const requestSchemaName = (name: OperationName) => `${name.charAt(0).toUpperCase()}${name.slice(1)}Request`;

const documented = (name: OperationName): OperationText => ({
  path: operationPath(name),
  summary: CATALOGUE[name].summary,
  description: CATALOGUE[name].description,
  failureMessage: CATALOGUE[name].failureMessage,
  requestSchema: requestSchemaName(name),
  validBody: DEFINITIONS[name].docs.validBody,
});

const OPERATION_TEXTS = Object.fromEntries(OPERATIONS.map((name) => [name, documented(name)])) as Record<OperationName, OperationText>;

/**
 * What the length keywords of a password field cannot say: the service counts code points both as
 * sent (as `minLength` and `maxLength` do) and after Unicode NFC, and holds both to the limits.
 */
const PASSWORD_LENGTH_NOTE =
  'Its length is counted in Unicode code points, as sent (what `minLength` and `maxLength` count) and again after NFC normalisation, ' +
  'and both counts must be within the limits: NFC can lengthen a password (three U+1D160 musical notes are nine code points after NFC) ' +
  'or shorten it below the minimum (a decomposed `e` and combining acute accent, two code points, is one `é`), which no JSON Schema keyword can state. ' +
  "It is also refused when it is too easy to guess (the blocklist, the user's e-mail and its derivatives, the owner's blocked words: see the 400 response).";

const outsidePolicy = (field: string, p: PasswordPolicy) =>
  `\`${field}\` not a string, or outside the password policy (${p.minLength} to ${p.maxLength} characters, counted as sent and after NFC)`;

/** Per field: what it means, a value the schema refuses, and why that value is refused. */
const FIELDS: Record<string, { description: string; invalid: Json; invalidBecause: (policy: PasswordPolicy) => string }> = {
  user_email: {
    description: 'E-mail address of the user; identifies the user in every operation.',
    invalid: 'jane.example.com',
    invalidBecause: () => '`user_email` not a string holding a valid e-mail address of at most 254 characters',
  },
  user_password: {
    description: `Password of the new user, echoed in the response. Generated (and returned) when absent. ${PASSWORD_LENGTH_NOTE}`,
    invalid: 'short',
    invalidBecause: (p) => outsidePolicy('user_password', p),
  },
  new_password: {
    description: `The new password. ${PASSWORD_LENGTH_NOTE}`,
    invalid: 'short',
    invalidBecause: (p) => outsidePolicy('new_password', p),
  },
  should_reset_password: {
    description:
      'When true, the user must choose a new password at next sign-in. `"true"`, `"false"` or a JSON boolean; default false. Stored with the user.',
    invalid: 'yes',
    invalidBecause: () => '`should_reset_password` not one of "true", "false", true, false',
  },
};

/** Stands in the document for a byte that is not UTF-8 (the replay test sends 0xE9 in its place). */
export const NOT_UTF8_STAND_IN = '\uFFFD';

/** The parameter the "unknown parameter" examples send. */
const UNKNOWN_PARAMETER = 'role';

/** A body's text with its first member given twice: what the duplicate-name examples send. */
export function duplicated(body: JsonObject): string {
  const text = JSON.stringify(body);
  const first = JSON.stringify(Object.fromEntries(Object.entries(body).slice(0, 1))).slice(1, -1);
  return `{${first},${text.slice(1)}`;
}

/** Cases every operation shares, in the contract's order of request handling. */
function sharedCases(op: OperationText): { before: Case[]; after: Case[] } {
  const message = (text: string) => ({ message: text });
  return {
    before: [
      {
        name: 'apiKeyInvalid',
        status: 401,
        summary: 'X-API-Key missing, empty, sent more than once, unknown, revoked, expired, or limited to other operations',
        given:
          'Sent without a valid `X-API-Key` for this operation, or with the header twice. The key is checked before the body is looked at.',
        request: op.validBody,
        response: message(MESSAGES.unauthorized),
      },
      {
        name: 'ownerGone',
        status: 403,
        summary: 'The key is valid but its owner account (the white-label user) no longer exists',
        given: "Sent with a key whose owner's own account has been removed.",
        request: op.validBody,
        response: message(MESSAGES.noOwner),
      },
      {
        name: 'bodyTooLarge',
        status: 413,
        summary: `Body larger than 16 KiB (${MAX_BODY_BYTES} bytes)`,
        given: `Any body over ${MAX_BODY_BYTES} bytes, whatever its content type.`,
        request: { ...op.validBody, padding: `<more than ${MAX_BODY_BYTES} bytes in all>` },
        response: message(MESSAGES.bodyTooLarge),
        invalidBody: true,
      },
      {
        name: 'contentTypeNotJson',
        status: 415,
        summary: 'Content-Type present and not application/json (a charset parameter is accepted)',
        given: 'Sent with `Content-Type: text/plain`.',
        request: op.validBody,
        response: message(MESSAGES.unsupportedMediaType),
      },
      {
        name: 'bodyNotUtf8',
        status: 400,
        summary: 'Body bytes not valid UTF-8, or a string in it holding an unpaired surrogate',
        // Shown in words and with U+FFFD: the offending input itself is not I-JSON (RFC 7493), and jq refuses a lone surrogate escape.
        given:
          'Sent with a byte sequence that is not UTF-8: here the single byte 0xE9 (Latin-1 for é) where the example shows U+FFFD, the replacement character. ' +
          'A string holding an unpaired surrogate escape (a backslash-u escape from D800 to DFFF without its pair) is refused the same way. ' +
          'Nothing is stored, and no password is ever altered on its way to the hash.',
        request: { ...op.validBody, user_email: `jane${NOT_UTF8_STAND_IN}@example.com` },
        response: message(MESSAGES.invalidUtf8),
        invalidBody: true,
      },
      {
        name: 'bodyNotAnObject',
        status: 400,
        summary: 'Body not valid JSON, or JSON that is not an object',
        request: [EXAMPLE_USER_EMAIL],
        response: message(MESSAGES.notAnObject),
        invalidBody: true,
      },
      {
        name: 'bodyDuplicateName',
        status: 400,
        summary: 'A member named twice in the body (the first name given twice, in the body order)',
        // A JSON object in this document cannot hold one name twice (I-JSON, RFC 7493): the request is shown once, and said in words.
        given:
          `Sent with its first member given twice, here \`${duplicated(op.validBody)}\`. ` +
          "Names are compared decoded (an escaped spelling of a name is the same name); only the body object's own members count. " +
          `A name longer than ${ECHOED_NAME_CODE_POINTS} code points is echoed as its first ${ECHOED_NAME_CODE_POINTS} followed by \`…\`.`,
        request: op.validBody,
        response: message(duplicateParameter(Object.keys(op.validBody)[0]!)),
        invalidBody: true,
      },
    ],
    after: [
      {
        name: 'throttled',
        status: 429,
        summary: "Over the stage's request rate, or over one key's or one address's share of it",
        given:
          "Sent above the deployed stage's throttling limits, or above the edge's per-key or per-address budget (answered with `Retry-After`, in seconds); the local server does not throttle.",
        request: op.validBody,
        response: message(MESSAGES.tooManyRequests),
      },
      {
        name: 'storageFailure',
        status: 500,
        summary: 'Storage failure, or any failure not listed',
        given: 'Sent while the storage fails.',
        request: op.validBody,
        response: message(op.failureMessage),
      },
    ],
  };
}

/**
 * What the server answers before a request is one at all (the local server's answers: a deployed
 * stage's front end answers these itself). Every operation can get them; each closes the connection.
 */
function protocolCases(op: OperationText): Case[] {
  const closed = 'The server answers without reading the body and closes the connection.';
  return [
    {
      name: 'notHttp',
      status: 400,
      summary:
        'Not a request the server takes as HTTP/1.1: a malformed request line or header, `Content-Length` beside `Transfer-Encoding`, no `Host` header or two, or `CONNECT`',
      given: `Sent over HTTP/1.1 without a \`Host\` header. ${closed} Answered so by the local server; in front of a deployed stage, API Gateway answers such requests itself.`,
      request: op.validBody,
      response: { message: MESSAGES.badRequest },
    },
    {
      name: 'expectationFailed',
      status: 417,
      summary: 'An `Expect` header other than `100-continue`',
      given: `Sent with \`Expect: something-else\`. ${closed} Answered so by the local server.`,
      request: op.validBody,
      response: { message: MESSAGES.expectationFailed },
    },
    {
      name: 'headersTooLarge',
      status: 431,
      summary: "A header section larger than the server accepts (the local server: Node's limit, 16 KiB)",
      given: `Sent with a header section over 16 KiB. ${closed} Answered so by the local server.`,
      request: op.validBody,
      response: { message: MESSAGES.headersTooLarge },
    },
  ];
}

/** One 400 case per contract row of the operation's schema, in the rows' order (the first row that applies wins). */
function validationCases(op: OperationText, rows: readonly Row[], policy: PasswordPolicy): Case[] {
  return rows.map((row) => {
    if (row.fields === '*') {
      return {
        name: 'unknownParameter',
        status: 400,
        summary: `A parameter the operation does not list (here \`${UNKNOWN_PARAMETER}\`)`,
        given: `A name longer than ${ECHOED_NAME_CODE_POINTS} code points is echoed as its first ${ECHOED_NAME_CODE_POINTS} followed by \`…\`.`,
        request: { ...op.validBody, [UNKNOWN_PARAMETER]: 'admin' },
        response: { message: row.message(UNKNOWN_PARAMETER) },
        invalidBody: true,
      };
    }
    const field = row.fields[0]!;
    if (row.failures.includes('guessable')) {
      return {
        name: `${camel(field)}Guessable`,
        status: 400,
        summary:
          'Too easy to guess. Compared in its comparison form (NFKC, invisible default-ignorable characters removed, Unicode case folding, ' +
          'white space around removed): on the blocklist of common and breached passwords (compared whole), ' +
          "the user's e-mail or its part before the `@`, or a derivative of a context word (the e-mail, its local part, its domain's first label, " +
          "the owner's blocked words: every occurrence removed, what is left has no letter or, without digits, punctuation, symbols and white space, is on the blocklist)",
        request: { ...op.validBody, [field]: 'iloveyou' },
        response: { message: row.message(field) },
        invalidBody: true,
      };
    }
    if (row.failures.includes('breached')) {
      return {
        name: `${camel(field)}Breached`,
        status: 400,
        summary: 'Found by the online check (Pwned Passwords), on a stage that has it on (off by default)',
        given: 'The stage has the online check on, and the password is in its answer.',
        request: { ...op.validBody, [field]: 'tr0ub4dor&3-horse' },
        response: { message: row.message(field) },
      };
    }
    const spec = FIELDS[field];
    if (!spec) throw new Error(`No example values for field ${field}`);
    const invalid = row.failures.includes('invalid');
    const request: JsonObject = { ...op.validBody };
    if (invalid) request[field] = spec.invalid;
    else delete request[field];
    const summary = invalid ? spec.invalidBecause(policy) : `${row.fields.map((f) => `\`${f}\``).join(' or ')} absent, null or empty`;
    return {
      name: `${camel(field)}${invalid ? 'Invalid' : 'Missing'}`,
      status: 400,
      summary,
      request,
      response: { message: row.message(field) },
      invalidBody: true,
    };
  });
}

/** The cases only one operation has: its module's. */
function operationCases(name: OperationName): { success: Case; refusals: readonly Case[] } {
  const { success, refusals } = DEFINITIONS[name].docs;
  return { success, refusals };
}

/** Every case of an operation: success first, then the contract's order (authentication, body, validation, operation). */
export function casesOf(name: OperationName, policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY): Case[] {
  const op = OPERATION_TEXTS[name];
  const shared = sharedCases(op);
  const own = operationCases(name);
  const idempotent = idempotencyCases(own.success);
  const [apiKeyInvalid, ownerGone, ...bodyChecks] = shared.before;
  return [
    own.success,
    idempotent.replayed,
    ...protocolCases(op),
    apiKeyInvalid!,
    ownerGone!,
    idempotent.keyInvalid,
    ...bodyChecks,
    ...validationCases(op, operationSchemas(policy)[name].rows, policy),
    ...idempotent.lookUp,
    ...own.refusals,
    ...shared.after,
  ];
}

/** The Idempotency-Key the idempotency cases are told with: a UUID, as callers are advised to send. Never the parameter's example. */
export const EXAMPLE_IDEMPOTENCY_KEY = '5f0c6b9e-2d4a-4c1e-9b7a-3e8f1d2c6a40';

/**
 * The Idempotency-Key cases: its shape (after the API key, before the body), the look-up's two
 * refusals (after validation, before the operation), and a replay of the operation's success.
 */
function idempotencyCases(success: Case): { replayed: Case; keyInvalid: Case; lookUp: Case[] } {
  const sentWith = `Sent with \`Idempotency-Key: ${EXAMPLE_IDEMPOTENCY_KEY}\``;
  return {
    replayed: {
      ...success,
      name: 'replayed',
      summary: `The same request again with the same Idempotency-Key within 24 hours: the recorded response, with \`${REPLAYED_HEADER}: true\``,
      given: `${sentWith} a second time; the first request with it was answered this.`,
    },
    keyInvalid: {
      name: 'idempotencyKeyInvalid',
      status: 400,
      summary: 'Idempotency-Key present and not 16 to 255 printable ASCII characters (checked before the body)',
      given: 'Sent with `Idempotency-Key: too-short`.',
      request: success.request,
      response: { message: MESSAGES.idempotencyKeyInvalid },
    },
    lookUp: [
      {
        name: 'idempotencyKeyReused',
        status: 422,
        summary: 'The Idempotency-Key was already used, within 24 hours, with another operation or another body',
        given: `${sentWith}, which an earlier request with another body used.`,
        request: success.request,
        response: { message: MESSAGES.idempotencyKeyReused },
      },
      {
        name: 'idempotencyInProgress',
        status: 409,
        summary: 'The first request with this Idempotency-Key is still running',
        given: `${sentWith} while the first request with it is still running.`,
        request: success.request,
        response: { message: MESSAGES.idempotencyInProgress },
      },
    ],
  };
}

/** The Idempotency-Key request header (the replay header is inline in each response: REPLAYED_HEADER_OBJECT). */
function idempotencyComponents(): { parameters: JsonObject } {
  return {
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Optional; makes the request safe to send again. 16 to 255 printable ASCII characters, unique per request: send a random UUID. ' +
          'The first request with a key runs and its response is recorded for 24 hours, unless it is a 500. ' +
          'The same request again with the key (same operation, same body as parsed) gets the recorded status and body, ' +
          `with \`${REPLAYED_HEADER}: true\`, without running again; for a create this includes the password, a generated one too. ` +
          'The key with another request: 422. While the first request still runs: 409. Keys are scoped to the owner of the API key.',
        schema: { type: 'string', minLength: 16, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
        // No `example`: Swagger UI (and Postman) would pre-fill it, and the same owner's second "Try it out"
        // would reuse the key with another body and get 422 for 24 hours.
      },
    },
  };
}

/**
 * Sent only on a replay, so `required: false`, written inline in each response: generators such
 * as openapi-typescript mark a header given by `$ref` required whatever the component says.
 */
const REPLAYED_HEADER_OBJECT = {
  description: 'Present, with the value `true`, when this is the recorded response of an earlier request with the same Idempotency-Key.',
  required: false,
  schema: { type: 'string', const: 'true' },
};

const ref = (schema: string) => ({ $ref: `#/components/schemas/${schema}` });

/**
 * The validation schema as OpenAPI shows it: the body as sent. ajv-keywords' `transform`
 * is not JSON Schema, so a transformed field is documented by {@link wireEmail}.
 */
function toOpenApiSchema(schema: unknown, policy: PasswordPolicy): Json {
  if (Array.isArray(schema)) return schema.map((item) => toOpenApiSchema(item, policy));
  if (typeof schema !== 'object' || schema === null) return schema as Json;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([field, fieldSchema]) => [field, describeField(field, fieldSchema, policy)]),
      );
    } else {
      out[key] = toOpenApiSchema(value, policy);
    }
  }
  return out;
}

function describeField(field: string, schema: unknown, policy: PasswordPolicy): Json {
  const description = FIELDS[field]?.description ?? '';
  if ((schema as { transform?: unknown }).transform) return wireEmail(description, schema);
  return { description, ...(toOpenApiSchema(schema, policy) as JsonObject) };
}

/** The pipeline's e-mail schema (functions/shared/contract/schemas.ts), which {@link EMAIL_PATTERN} restates. */
const PIPELINE_EMAIL = { type: 'string', transform: ['trim', 'toLowerCase'], minLength: 1, maxLength: 254, format: 'email' };

/**
 * What the service accepts as an e-mail, as sent, in one ECMA-262 pattern. The pipeline trims
 * and lower-cases first, then checks length and ajv-formats' `email` format; a validator reading
 * those keywords would check the untrimmed string and refuse `" Jane@Example.com "`, which the
 * service accepts. So: surrounding white space (`\s` is exactly what `String.prototype.trim`
 * removes), 1 to 254 characters between it, and ajv-formats' full `email` regex with its `i` flag
 * spelled out. U+212A (Kelvin sign) is the one character whose lower case is an ASCII letter.
 * test/unit/openapi.test.ts holds this to the service's validators.
 */
const LETTER = 'A-Za-z0-9\\u212A';
const ATOM = `[${LETTER}!#$%&'*+/=?^_\`{|}~-]+`;
const LABEL = `[${LETTER}](?:[${LETTER}-]*[${LETTER}])?`;
export const EMAIL_PATTERN = `^\\s*(?=\\S{1,254}\\s*$)${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+${LABEL}\\s*$`;

/** A trimmed, lower-cased e-mail field as sent: {@link EMAIL_PATTERN}, with the transform said in words and as `x-transform`. */
function wireEmail(description: string, schema: unknown): JsonObject {
  if (JSON.stringify(schema) !== JSON.stringify(PIPELINE_EMAIL)) {
    throw new Error('The e-mail schema in schemas.ts changed: restate it in EMAIL_PATTERN (codegen/openapi.ts)');
  }
  return {
    description:
      `${description} The service removes white space around it and lower-cases it before it checks, stores or looks it up ` +
      '(`" Bob@Example.com"` and `"bob@example.com"` are one user); what remains must be an e-mail address (JSON Schema format `email`) ' +
      'of at most 254 characters. The pattern states exactly that for the value as sent.',
    type: 'string',
    pattern: EMAIL_PATTERN,
    'x-transform': [...PIPELINE_EMAIL.transform],
  };
}

/** Markdown list of a status's cases, for its response description. */
const listCases = (cases: readonly Case[]) => cases.map((c) => `- ${c.summary}: \`${c.response.message ?? ''}\``).join('\n');

function example(c: Case, value: Json): JsonObject {
  return { summary: c.summary, ...(c.given && { description: c.given }), value };
}

/**
 * A response example; one whose request breaks the request schema also carries that request
 * (`x-request-body`, and in words for readers), since it cannot be a request example.
 */
function responseExample(c: Case): JsonObject {
  if (!c.invalidBody) return example(c, c.response);
  const sent = `Request body: \`${JSON.stringify(c.request)}\``;
  return { summary: c.summary, description: c.given ? `${c.given} ${sent}` : sent, value: c.response, 'x-request-body': c.request };
}

function operationObject(name: OperationName, policy: PasswordPolicy): JsonObject {
  const op = OPERATION_TEXTS[name];
  const cases = casesOf(name, policy);
  const statuses = [...new Set(cases.map((c) => c.status))].sort((a, b) => a - b);
  // The operation's own answers are the ones an Idempotency-Key records and replays.
  const { success, refusals } = operationCases(name);
  const recordable = new Set([success, ...refusals].map((c) => c.status));
  const responses: JsonObject = {};
  for (const status of statuses) {
    const own = cases.filter((c) => c.status === status);
    responses[String(status)] = {
      description: status === 200 ? `${own[0]!.summary}.` : listCases(own),
      ...(recordable.has(status) && { headers: { [REPLAYED_HEADER]: REPLAYED_HEADER_OBJECT } }),
      content: {
        'application/json': {
          schema: ref((status === 200 && DEFINITIONS[name].docs.successSchema?.name) || 'Message'),
          examples: Object.fromEntries(own.map((c) => [c.name, responseExample(c)])),
        },
      },
    };
  }
  return {
    operationId: name,
    tags: ['User Management'],
    summary: op.summary,
    description: op.description,
    parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: ref(op.requestSchema),
          examples: Object.fromEntries(cases.filter((c) => !c.invalidBody).map((c) => [c.name, example(c, c.request)])),
        },
      },
    },
    responses,
  };
}

/** How many operations there are, in words ("three"): the document's prose counts from the registry. */
const COUNT_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const OPERATION_COUNT = COUNT_WORDS[OPERATIONS.length] ?? String(OPERATIONS.length);
/** What the operations do, from their summaries: "create a user, reset a user password, delete a user". */
const OPERATION_SUMMARIES = OPERATIONS.map((name) => CATALOGUE[name].summary.replace(/^./, (c) => c.toLowerCase())).join(', ');

const INTRODUCTION = [
  `Lets the owner of a white-label tool manage its users: ${OPERATION_SUMMARIES}. ` +
    `None of the ${OPERATION_COUNT} operations notifies the affected user.`,
  '',
  "Every request carries the owner's API key in `X-API-Key`. Every response, success or error, is `application/json`; " +
    'every error body is exactly `{"message": "..."}`.',
  '',
  'Requests are handled in this order, and the first refusal is the answer:',
  '',
  '0. HTTP itself, on the local server (a deployed stage\'s front end answers these itself): `400 {"message":"Bad Request"}` for what is not an HTTP/1.1 request ' +
    '(a malformed request line or header, no `Host` header or two, `CONNECT`), `417 {"message":"Expectation Failed"}` for an `Expect` other than `100-continue`, ' +
    '`431 {"message":"Request Header Fields Too Large"}` for a header section over 16 KiB; each closes the connection, and a request answered before it on the connection keeps its answer.',
  `1. Route: only the ${OPERATION_COUNT} \`POST\` operations below exist. Any other path: \`404 {"message":"Not Found"}\`. ` +
    `Another method on one of the ${OPERATION_COUNT} paths: \`405 {"message":"Method Not Allowed"}\` with \`Allow: POST\`.`,
  "2. API key, before the body is looked at: `401` for a missing, empty, unknown, revoked or expired key, or one limited to other operations; `403` when the key's owner account is gone. " +
    'Then the optional `Idempotency-Key` header: `400` when it is present and malformed.',
  '3. Body: `413` over 16 KiB, `415` for a Content-Type other than `application/json`, `400` when its bytes are not UTF-8 or a string holds an unpaired surrogate (never altered), `400` when it is not a JSON object, ' +
    '`400` `Duplicate parameter: <name>.` when the object names a member twice (I-JSON, RFC 7493). ' +
    `A message that echoes a member name cuts it at ${ECHOED_NAME_CODE_POINTS} code points and adds \`…\`.`,
  "4. The operation's JSON Schema: a `400` whose message is that of the first row of the operation's table that applies (the order of the examples).",
  '5. With an `Idempotency-Key`, its look-up: a recorded response is replayed, or the key is refused (`422`, `409`).',
  '6. The operation itself.',
  '',
  'E-mail addresses are trimmed and lower-cased before they are checked, stored or looked up: ' +
    '` Jane@Example.com` and `jane@example.com` are one user (each e-mail field says so, and its `pattern` admits the white space). ' +
    "Each owner's users are its own: to another owner they do not exist. Throttled requests get `429`; " +
    "any failure not listed gets `500` with the operation's failure message.",
  '',
  'Every response example answers a request example of the same name, except where the request breaks the request schema ' +
    '(the `400` and `413` examples): the request is then given on the response example, in its description and as `x-request-body`. ' +
    'The answers to unknown paths and methods belong to no operation; they are under `x-routing-responses`.',
].join('\n');

/**
 * The routing answers, which belong to no operation: a root extension, since an OpenAPI
 * component that no operation refers to is dead weight to the tools that read the document.
 */
function routingResponses(): JsonObject {
  const message = (text: string) => ({ type: 'object', required: ['message'], properties: { message: { type: 'string', const: text } } });
  return {
    NotFound: {
      description: `Any path other than the ${OPERATION_COUNT} operations.`,
      content: { 'application/json': { schema: message(MESSAGES.notFound), example: { message: MESSAGES.notFound } } },
    },
    MethodNotAllowed: {
      description: `A method other than POST on one of the ${OPERATION_COUNT} operation paths.`,
      headers: { Allow: { description: 'The one method the path accepts.', schema: { type: 'string', const: 'POST' } } },
      content: { 'application/json': { schema: message(MESSAGES.methodNotAllowed), example: { message: MESSAGES.methodNotAllowed } } },
    },
  };
}

/**
 * The server the document names: `.`, relative to where the document is served (OpenAPI 3.1, Server
 * Object: the URL "MAY be relative, to indicate that the host location is relative to the location
 * where the OpenAPI document is being served"). Served at `{base_url}/openapi.json`, it resolves to
 * `{base_url}` on every host: the local server, a stage's execute-api URL, a custom domain with any
 * base path mapping, a reverse proxy. So every copy of the document is the same, byte for byte.
 */
export const SERVED_BASE_URL = '.';

/** The OpenAPI 3.1 document for a deployment's password policy (the default one unless given). */
export function buildOpenApiDocument(policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY): JsonObject {
  const schemas = operationSchemas(policy);
  const names = OPERATIONS;
  return {
    openapi: '3.1.0',
    info: {
      title: 'White-label user management API',
      version: '1.0.0',
      description: INTRODUCTION,
    },
    servers: [
      {
        url: SERVED_BASE_URL,
        description:
          'The address this document was served from, without `/openapi.json`: every path below is appended to it. `.` is relative to that address, so it is right on every host: ' +
          '`http://127.0.0.1:3000` for `npm start`, `https://{api-id}.execute-api.{region}.amazonaws.com/{stage}` for a deployed stage (the stack output BaseUrl), ' +
          'or its custom domain with any base path. A tool that reads this file from disk needs the address set.',
      },
    ],
    security: [{ ApiKey: [] }],
    tags: [{ name: 'User Management', description: "The users of the caller's white-label tool." }],
    paths: Object.fromEntries(names.map((name) => [OPERATION_TEXTS[name].path, { post: operationObject(name, policy) }])),
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'The API key of a white-label owner; it identifies the owner on whose behalf the call is made. Keys start with `wlk_`.',
        },
      },
      schemas: {
        ...Object.fromEntries(names.map((name) => [OPERATION_TEXTS[name].requestSchema, toOpenApiSchema(schemas[name].schema, policy)])),
        ...Object.fromEntries(
          names.flatMap((name) => {
            const own = DEFINITIONS[name].docs.successSchema;
            return own ? [[own.name, own.schema]] : [];
          }),
        ),
        Message: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string', description: 'Human-readable text, one of the messages documented per response.' } },
          additionalProperties: false,
        },
      },
      ...idempotencyComponents(),
    },
    'x-routing-responses': routingResponses(),
  };
}

/** The document as written to `openapi.json`: two-space JSON in the builder's key order, with a trailing newline. */
export const serializeOpenApiDocument = (document: JsonObject) => `${JSON.stringify(document, null, 2)}\n`;

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
