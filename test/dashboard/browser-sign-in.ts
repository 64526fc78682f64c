/** The browser tests' way in: a fresh context, the page at `path`, the login form it redirects to, and back. */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

export async function signedInPage(browser: Browser, contexts: BrowserContext[], url: string, token: string, path: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled: options.javaScriptEnabled ?? true });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(`${url}${path}`);
  await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}${path}`);
  return page;
}
