/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias set by
 * HandlerFunction). Lambda hands a function its execution role's credentials in the environment,
 * so the default chain's SSO, INI-file, STS and instance-metadata providers, which the DynamoDB
 * client imports whatever credentials it is given, are 135 KB of dead weight at cold start.
 */

import { fromEnv } from '@aws-sdk/credential-provider-env';

/** The one export the SDK clients take from the default chain. */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
