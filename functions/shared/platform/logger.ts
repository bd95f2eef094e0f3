import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured JSON logger. Never pass it a password, hash, API key or raw error from storage. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'user-management' });
