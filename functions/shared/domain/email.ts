/** Trims and lower-cases an e-mail address: `Bob@Example.com ` and `bob@example.com` are one user. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
