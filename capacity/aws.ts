/** AWS's limits and prices as capacity/aws-limits.json records them, each with its source, and the model's assumptions. */

import { readFileSync } from 'node:fs';
import type { Assumptions, AwsFigures, AwsLimitId } from './model';
import { READ_UNIT_BYTES, WRITE_UNIT_BYTES } from './request-units';

export interface AwsFigure {
  readonly value: number;
  readonly unit: string;
  readonly basis: 'documented' | 'assumption';
  readonly title: string;
  readonly url: string;
  /** The sentence read, word for word (empty for an assumption no AWS text states). */
  readonly quote: string;
  readonly note?: string;
  /** The day this page was read, when not the file's. */
  readonly read?: string;
}

export interface AwsLimitsFile {
  readonly region: string;
  /** The day the pages were read (YYYY-MM-DD). */
  readonly read: string;
  readonly limits: Readonly<Record<string, AwsFigure>>;
  readonly assumptions: Readonly<Record<string, { readonly value: number; readonly unit: string; readonly note: string }>>;
}

export const AWS_LIMITS_PATH = new URL('./aws-limits.json', import.meta.url);

export const readAwsLimits = (path: URL | string = AWS_LIMITS_PATH): AwsLimitsFile => JSON.parse(readFileSync(path, 'utf8'));

/** The figures the model uses, by id; throws naming an id the file lacks or a documented figure without its quote. */
export function awsFigures(file: AwsLimitsFile): { aws: AwsFigures; assumed: Assumptions } {
  const figure = (id: string) => {
    const entry = file.limits[id];
    if (!entry || !Number.isFinite(entry.value)) throw new Error(`capacity/aws-limits.json has no figure "${id}"`);
    if (entry.basis === 'documented' && entry.quote.trim() === '')
      throw new Error(`capacity/aws-limits.json: "${id}" is documented but quotes nothing`);
    if (entry.basis === 'assumption' && !entry.note)
      throw new Error(`capacity/aws-limits.json: "${id}" is an assumption without a note saying why`);
    return entry.value;
  };
  const ids: AwsLimitId[] = [
    'lambdaConcurrency',
    'lambdaScalingPer10s',
    'lambdaRequestsPerEnvironment',
    'apiGatewayAccountRps',
    'dynamoPartitionWrite',
    'dynamoPartitionRead',
    'dynamoTableWrite',
    'dynamoTableRead',
    'dynamoNewTableWrite',
    'dynamoNewTableRead',
    'dynamoWriteUnitBytes',
    'dynamoReadUnitBytes',
    'eventBridgePutEventsRps',
    'lambdaArmUsdPerGbSecond',
    'lambdaUsdPerMillionRequests',
    'apiGatewayRestUsdPerMillion',
    'apiGatewayRestUsdPerMillionNext667M',
    'apiGatewayRestUsdPerMillionNext19B',
    'apiGatewayRestUsdPerMillionOver20B',
    'cloudwatchLogsUsdPerGb',
    'cloudwatchCustomMetricUsdMonth',
    'cognitoProvisionedUsdPerRpsMonth',
    'wafUsdPerMillion',
    'wafUsdPerWebAclMonth',
    'wafUsdPerRuleMonth',
    'xrayUsdPerTrace',
    'eventBridgeUsdPerMillionEvents',
    'dynamoUsdPerMillionWrites',
    'dynamoUsdPerMillionReads',
  ];
  const assumption = (id: keyof Assumptions) => {
    const entry = file.assumptions[id];
    if (!entry || !Number.isFinite(entry.value)) throw new Error(`capacity/aws-limits.json has no assumption "${id}"`);
    return entry.value;
  };
  const aws = Object.fromEntries(ids.map((id) => [id, figure(id)])) as AwsFigures;
  // The unit sizes the rules apply (capacity/request-units.ts) are the ones this file quotes.
  if (aws.dynamoReadUnitBytes !== READ_UNIT_BYTES || aws.dynamoWriteUnitBytes !== WRITE_UNIT_BYTES)
    throw new Error('capacity/aws-limits.json: dynamoReadUnitBytes and dynamoWriteUnitBytes differ from capacity/request-units.ts');
  return {
    aws,
    assumed: {
      putEventsRoundTripMs: assumption('putEventsRoundTripMs'),
      ledgerPutRoundTripMs: assumption('ledgerPutRoundTripMs'),
      streamShards: assumption('streamShards'),
      secondsPerMonth: assumption('secondsPerMonth'),
      logBytesPerRequest: assumption('logBytesPerRequest'),
    },
  };
}

/** The Cognito quotas compared with, by category (also in aws-limits.json). */
export const cognitoQuota = (
  file: AwsLimitsFile,
  category: 'UserAuthentication' | 'UserCreation' | 'UserAccountRecovery' | 'UserUpdate',
) => {
  const entry = file.limits[`cognito${category}`];
  if (!entry) throw new Error(`capacity/aws-limits.json has no Cognito quota "${category}"`);
  return { category, rps: entry.value };
};
