/**
 * The bench: its measurements, in the order they run and their sections appear in
 * bench/RESULTS.md. A new measurement is a file in this folder and its line here; one that reads
 * another's result (`context.resultOf`) comes after it.
 */

import type { AnyMeasurement } from '../report';
import { argon2 } from './argon2';
import { bundles } from './bundles';
import { ddbCalls } from './ddb-calls';
import { deleteScaling } from './delete-scaling';
import { importThroughput } from './import-throughput';
import { lambdaMemory } from './lambda-memory';
import { latency } from './latency';
import { npmStartIdle } from './npm-start-idle';
import { passwordChecks } from './password-checks';
import { requestUnits } from './request-units';
import { serviceShare } from './service-share';
import { signInMeasurement } from './sign-in';
import { throughput } from './throughput';

export const MEASUREMENTS: readonly AnyMeasurement[] = [
  latency,
  argon2,
  serviceShare,
  passwordChecks,
  lambdaMemory,
  throughput,
  importThroughput,
  ddbCalls,
  requestUnits,
  signInMeasurement,
  deleteScaling,
  npmStartIdle,
  // Last: DynamoDB Local is stopped by then, and these are cold imports in fresh processes.
  bundles,
];
