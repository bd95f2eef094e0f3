/** What the staging suite needs: the stage's base URL, two owners' keys and their own e-mails. */
export const STAGING_VARIABLES = ['BASE_URL', 'API_KEY', 'API_KEY_B', 'OWNER_EMAIL', 'OWNER_EMAIL_B'] as const;
