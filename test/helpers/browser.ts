// A real browser for end-to-end tests: Debian's Chromium driven by playwright-core (no downloaded
// browsers), plus a tiny local "merchant" server to return to.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/config';
import { TEST_LOG_DIR } from './processes';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Console messages about Content-Security-Policy violations: a page that works must cause none. */
export function collectCspViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/**
 * Saves a screenshot under the test logs; with SAVE_DOC_SCREENSHOTS=1 under docs/images too, so
 * the documentation's pictures are refreshed on purpose, not by every test run.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dirs = [path.join(TEST_LOG_DIR, 'screenshots')];
  if (process.env.SAVE_DOC_SCREENSHOTS === '1') dirs.push(path.join(PROJECT_ROOT, 'docs', 'images'));
  const image = await page.screenshot({ fullPage: true });
  for (const dir of dirs) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, name), image);
  }
}

export interface ReturnServer {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** Every URL the browser came back on. */
  visits: URL[];
  close(): Promise<void>;
}

/** The merchant's return page: records the visit and says so (the result is read from the API). */
export async function startReturnServer(): Promise<ReturnServer> {
  const visits: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    visits.push(url);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Back at the shop</title><h1>Back at the shop</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    visits,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
