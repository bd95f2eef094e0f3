/**
 * Swagger UI's page as a user drives it in headless Chromium (the `/docs` tests): the API key given
 * through its Authorize dialog, then an operation's "Try it out" opened.
 */

import type { Locator, Page } from 'playwright-core';

/** On a loaded `/docs` page: authorizes with `apiKey` and opens `operationId`'s "Try it out"; its block, ready for a body and Execute. */
export async function tryItOut(page: Page, apiKey: string, operationId: string): Promise<Locator> {
  await page.locator('button.authorize').first().click();
  await page.locator('.auth-container input').fill(apiKey);
  await page.locator('.auth-btn-wrapper button.authorize').click();
  await page.locator('.auth-btn-wrapper button.btn-done').click();
  const operation = page.locator(`#operations-User_Management-${operationId}`);
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.try-out__btn').click();
  return operation;
}
