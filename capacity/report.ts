/**
 * The capacity model's subjects and hot items built from a bench run, and the table it prints: as
 * text for `npm run capacity`, and as the Markdown block docs/capacity.md holds between its markers.
 */

import { table } from '../bench/report';
import { type AwsLimitsFile, cognitoQuota } from './aws';
import { type HotItem, type HotKeyRow, hotKeyRow, readUnitsOf, writeUnitsOf } from './hot-keys';
import { type BenchInputs, demandOf, OPERATIONS, type Operation, SIGN_IN_OUTCOMES } from './inputs';
import { type Assumptions, type AwsFigures, type CapacityRow, capacityRow, FULL_VCPU_MB, type StackSettings, type Subject } from './model';

const COGNITO_CATEGORY = { createUser: 'UserCreation', resetUserPassword: 'UserAccountRecovery', deleteUser: 'UserUpdate' } as const;

/** Every subject of the model: the three operations, each again with an Idempotency-Key, and the sign-in by outcome. */
export function subjectsOf(bench: BenchInputs, memoryOf: (op: Operation) => number, file: AwsLimitsFile, aws: AwsFigures): Subject[] {
  // The consumer writes one ledger item per deletion (the users table's stream, not the request).
  const withLedger = (demand: Subject['demand']): Subject['demand'] =>
    demand.ledgerWrites === 0
      ? demand
      : {
          ...demand,
          tables: {
            ...demand.tables,
            deletions: { writeUnits: demand.ledgerWrites * writeUnitsOf(bench.itemBytes.ledgerEntry, aws), readUnits: 0 },
          },
        };
  const api = (op: Operation, name: string, footprint: BenchInputs['withIdempotencyKey'][Operation]): Subject => ({
    name,
    kind: 'api',
    memoryMb: memoryOf(op),
    demand: withLedger(demandOf(bench.operations[op], footprint)),
    cognito: cognitoQuota(file, COGNITO_CATEGORY[op]),
  });
  return [
    ...OPERATIONS.map((op) => api(op, op, bench.operations[op].footprint)),
    ...OPERATIONS.map((op) => api(op, `${op} + Idempotency-Key`, bench.withIdempotencyKey[op])),
    ...SIGN_IN_OUTCOMES.map(
      (outcome): Subject => ({
        name: `sign-in ${outcome}`,
        kind: 'sign-in',
        memoryMb: FULL_VCPU_MB,
        demand: demandOf(bench.signIn[outcome], bench.signIn[outcome].footprint),
        cognito: cognitoQuota(file, 'UserAuthentication'),
      }),
    ),
  ];
}

/** The items one owner, one key or one user can make hot. */
export function hotItemsOf(bench: BenchInputs, stack: StackSettings, aws: AwsFigures): HotItem[] {
  const bytes = bench.itemBytes;
  return [
    {
      item: "a user's profile (users table)",
      reachedBy: 'resetUserPassword or deleteUser of the same user, repeated',
      bytes: bytes.profile,
      access: 'write',
      methods: 2,
    },
    {
      item: "a user's sign-in state (users table, the user's partition)",
      reachedBy:
        'counted sign-in attempts at one user: a conditional write each (as a wrong password measured); from the sixth failure on, at most one per wait',
      bytes: null,
      unitsPerRequest: bench.signIn.wrong.footprint.units.users?.writeUnits ?? 0,
      access: 'write',
      methods: 0,
    },
    {
      item: "a user's profile and sign-in state (users table, the user's partition)",
      reachedBy:
        'sign-in attempts at one user during a wait: one strongly consistent read of the profile and the state (two items, each rounded up to 4 KB), no write',
      bytes: bytes.profile,
      unitsPerRequest: 2 * readUnitsOf(bytes.profile, aws, true),
      access: 'strong-read',
      methods: 0,
    },
    {
      item: "the owner's own account (users table)",
      reachedBy: "a create, reset or delete of the owner's own e-mail (refused: a failed conditional write, sized by the item)",
      bytes: bytes.ownerAccount,
      access: 'write',
      methods: 3,
    },
    {
      item: "an API key's item (owners table)",
      reachedBy: "the key's look-up, a strongly consistent read per warm environment and cache period",
      bytes: bytes.apiKey,
      access: 'strong-read',
      methods: 3,
      cap: {
        rps: (3 * aws.lambdaConcurrency) / stack.apiKeyCacheTtlSeconds,
        why: `one read per warm environment every ${stack.apiKeyCacheTtlSeconds} s: at most ${aws.lambdaConcurrency} environments of each of 3 functions`,
      },
    },
    {
      item: 'an idempotency record (idempotency table)',
      reachedBy: 'retries with the same Idempotency-Key (each a conditional put refused by the record, sized by it)',
      bytes: bytes.idempotencyRecord,
      access: 'write',
      methods: 3,
    },
  ];
}

export interface Model {
  readonly stack: StackSettings;
  readonly rows: CapacityRow[];
  readonly hot: HotKeyRow[];
}

export function runModel(
  bench: BenchInputs,
  stack: StackSettings,
  memoryOf: (op: Operation) => number,
  file: AwsLimitsFile,
  figures: { aws: AwsFigures; assumed: Assumptions },
): Model {
  const { aws, assumed } = figures;
  return {
    stack,
    rows: subjectsOf(bench, memoryOf, file, aws).map((subject) => capacityRow(subject, stack, aws, assumed)),
    hot: hotItemsOf(bench, stack, aws).map((item) => hotKeyRow(item, stack, aws)),
  };
}

/** Requests a second as printed: whole numbers with separators from 100 up, one decimal below. */
export const formatRps = (rps: number) =>
  rps >= 100 ? Math.floor(rps).toLocaleString('en-US') : (Math.floor(rps * 10) / 10).toLocaleString('en-US');
export const formatUsd = (usd: number) => `$${usd.toFixed(2)}`;
const basisMark = { setting: ' (setting)', documented: '', assumption: ' (assumption)' } as const;

/** The model as Markdown tables (padded as the formatter lays them out): capacity per request, then hot keys. */
export function renderMarkdown(model: Model): string {
  const capacity = table(
    [
      'request',
      `sustains, ${model.stack.stage} as deployed (req/s)`,
      'first limit',
      'beyond the stack settings (req/s)',
      'first limit there',
      'lifecycle events keep up to (req/s)',
      'p50 ms',
      `$ per million at the ${model.stack.stage} rate`,
      '$ per million at the ceiling',
      'Cognito default (req/s)',
    ],
    model.rows.map((r) => [
      r.subject.name,
      formatRps(r.deployed.rps),
      `${r.deployed.limit.label}${basisMark[r.deployed.limit.basis]}`,
      formatRps(r.ceiling.rps),
      `${r.ceiling.limit.label}${basisMark[r.ceiling.limit.basis]}`,
      r.events ? `${formatRps(r.events.rps)}: ${r.events.label}${basisMark[r.events.basis]}` : 'no events',
      r.latencyMs.toFixed(1),
      formatUsd(r.deployed.cost.total),
      formatUsd(r.ceiling.cost.total),
      `${r.subject.cognito.rps} (${r.subject.cognito.category})`,
    ]),
  );
  const hot = table(
    ['item', 'reached by', 'bytes', 'units per request', 'partition serves (req/s)', 'one key sends (req/s)', 'key limit below it'],
    model.hot.map((h) => [
      h.hot.item,
      h.hot.reachedBy,
      h.hot.bytes ?? 'measured per request',
      h.units,
      formatRps(h.partitionRps),
      h.oneKeyRps === null ? 'no key in front' : formatRps(h.oneKeyRps),
      h.keyBelowPartition === null ? 'n/a' : h.keyBelowPartition ? 'yes' : '**no**',
    ]),
  );
  return `${capacity}\n\n${hot}`;
}

/** The model as `npm run capacity` prints it: the Markdown tables, then every limit of each request in order. */
export function renderText(model: Model): string {
  const limits = model.rows.map(
    (r) =>
      `${r.subject.name}: ${r.limits.map((l) => `${formatRps(l.rps)} ${l.label}${basisMark[l.basis]}${l.effect === 'delays' ? ' (delays events)' : ''}`).join('; ')}; ${formatRps(r.environmentsAtCeiling)} Lambda environments busy at the ceiling; cost at the ceiling ${Object.entries(
        r.ceiling.cost.parts,
      )
        .map(([part, usd]) => `${part} ${usd.toFixed(3)}`)
        .join(', ')}`,
  );
  return `${renderMarkdown(model)}\n\nEvery limit, lowest first (requests/s of that request alone):\n${limits.map((line) => `- ${line}`).join('\n')}\n`;
}

/** The block docs/capacity.md holds: where the figures come from, then the tables. */
export function docBlock(model: Model, benchDate: string, file: AwsLimitsFile): string {
  return `From the bench run of ${benchDate} (bench/RESULTS.json), AWS's figures as read on ${file.read} for ${file.region} (capacity/aws-limits.json), and the ${model.stack.stage} stage as lib/stage-config.ts sets it.\n\n${renderMarkdown(model)}`;
}
