// /api/v1/docs in a real browser: headless Chromium from Debian's packages renders every operation
// of the document, with no request leaving the gateway and nothing refused by the CSP.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnvironment, type TestEnvironment } from '../support/environment.js';
import { hasChromium, launchChromium, missingChromium } from '../support/browser.js';
import { getJson, startGateway, type RunningGateway } from '../support/gateway.js';

if (!hasChromium) console.warn(`docs-browser.test.ts${missingChromium}`);

let env: TestEnvironment | undefined;
let gateway: RunningGateway | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  env = await createTestEnvironment();
  gateway = await startGateway(env);
  // launch() gives the browser a fresh, throwaway profile of its own.
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await env?.destroy();
});

/** Every documented operation as `METHOD /path`. */
async function documentedOperations(url: string): Promise<string[]> {
  const { body } = await getJson(`${url}/api/v1/openapi.json`);
  return Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(
    ([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('GET /api/v1/docs in headless Chromium', () => {
  it.skipIf(!hasChromium)(
    `when the page loads, then it lists every operation of the document, offline and within the CSP${hasChromium ? '' : missingChromium}`,
    async () => {
      const { url } = gateway!;
      const expected = await documentedOperations(url);
      const page = await browser!.newPage({ viewport: { width: 1280, height: 2000 } });
      const foreign: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(url)) foreign.push(request.url());
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });

      await page.goto(`${url}/api/v1/docs`);
      const operations = page.locator('.opblock-summary');
      await expect
        .poll(() => operations.count(), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(expected.length);
      const rendered = await operations.evaluateAll((blocks) =>
        blocks.map((block) => {
          const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
          const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path');
          return `${method.trim().toUpperCase()} ${path ?? ''}`;
        }),
      );
      expect(rendered.sort()).toEqual([...expected].sort());
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    },
  );
});
