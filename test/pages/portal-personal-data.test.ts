// The portal's personal-data page (features/portal/personal-data.page.tsx): every data class, what
// it covers, whether the partner's client holds it, and the fields in it as the API declares them;
// linked from the portal's navigation, in the partner's language, and another client's classes
// never shown.
import { describe, expect } from 'vitest';
import { DATA_CLASSES } from '#api/data-classes.js';
import { gatewayTest as base } from '../support/fixtures.js';
import { createTestClient } from '../support/gateway.js';
import { partnerSignedIn } from '../support/portal-session.js';

const it = base();

/** The class rows of the page: class, then whether held, then the fields. */
function rowsOf(html: string): Record<string, { held: string; fields: string }> {
  const table = /<table id="classes">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const rows: Record<string, { held: string; fields: string }> = {};
  for (const [, row] of table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)) {
    const cells = [...row!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) =>
      c[1]!.replace(/<[^>]+>/g, '').trim(),
    );
    if (cells.length === 4) rows[cells[0]!] = { held: cells[2]!, fields: cells[3]! };
  }
  return rows;
}

describe('the personal-data page', () => {
  it('shows the classes the client holds and withholds, with their fields, in the navigation', async ({
    env,
    gateway,
  }) => {
    const client = await createTestClient(gateway.db, {
      scopes: ['members:read'],
      dataClasses: ['contact'],
    });
    const browser = await partnerSignedIn(gateway, env.redisPrefix, client);
    const overview = await browser.get('/portal/overview');
    expect(overview.html).toContain('href="/portal/personal-data"');

    const page = await browser.get('/portal/personal-data');
    expect(page.status).toBe(200);
    const rows = rowsOf(page.html);
    expect(Object.keys(rows)).toEqual([...DATA_CLASSES]);
    expect(rows.basic!.held).toBe('Held');
    expect(rows.contact!.held).toBe('Held');
    expect(rows.identity!.held).toBe('Withheld');
    expect(rows.access!.held).toBe('Withheld');
    expect(rows.contact!.fields).toContain('Member.phone');
    expect(rows.identity!.fields).toContain('Member.tc_no');
    expect(rows.access!.fields).toContain('Member.qr_code');
    expect(rows.address!.fields).toContain('Member.address');
  });

  it('speaks Turkish once the partner switches, and another client holding every class changes nothing here', async ({
    env,
    gateway,
  }) => {
    await createTestClient(gateway.db, {
      scopes: ['members:read'],
      dataClasses: ['contact', 'identity', 'address', 'access', 'finance', 'staff'],
    });
    const client = await createTestClient(gateway.db, {
      scopes: ['members:read'],
      dataClasses: ['basic'],
    });
    const browser = await partnerSignedIn(gateway, env.redisPrefix, client);
    // The frame's switch, as the partner presses it.
    const switched = await browser.get('/portal/language/tr?back=/portal/personal-data');
    expect(switched.headers.get('location')).toBe('/portal/personal-data');
    const page = await browser.get('/portal/personal-data');
    expect(page.html).toContain('<html lang="tr"');
    const rows = rowsOf(page.html);
    expect(rows.basic!.held).toBe('Var');
    expect(
      Object.entries(rows)
        .filter(([name]) => name !== 'basic')
        .map(([, row]) => row.held),
    ).toEqual(['Yok', 'Yok', 'Yok', 'Yok', 'Yok', 'Yok']);
  });
});
