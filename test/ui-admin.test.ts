// Signing in and administration in the web UI (docs/ui.md#signing-in, #administration), end to end
// in headless Chromium against a real Assay with auth on: the login page and its refusals (401,
// 429 in words), the traces after signing in, an API key created (its secret shown once, copied,
// then listed by prefix) and revoked, a member added with a password link, both in the audit log,
// a price, a project, signing out, the link setting a password (422 beside the field) and the
// new viewer seeing no administration. Every request off the server is refused and counted (none
// may happen); axe finds no serious violation on the login page and an admin screen (light and
// dark). The run writes the screenshots the README shows (docs/screenshots/). Needs Debian's
// chromium.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, onlyFrom, screenshot, seriousViolations } from './helpers/browser.js';

const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const initKey = randomBytes(24).toString('hex');
const suite = browserSuite({
  ASSAY_AUTH: 'on',
  ASSAY_INIT_ADMIN_EMAIL: admin.email,
  ASSAY_INIT_ADMIN_PASSWORD: admin.password,
  ASSAY_INIT_API_KEY: initKey,
  // Two failures per email, then 429: the throttle's answer is reached in three attempts.
  ASSAY_LOGIN_FAILURES_PER_EMAIL: '2',
});

/** One finished span over OTLP/HTTP JSON, sent with the service's first key. */
async function sendTrace(name: string): Promise<void> {
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    name,
    kind: 1,
    startTimeUnixNano: String(now - 5_000_000n),
    endTimeUnixNano: String(now),
  };
  const body = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'ui-admin' }, spans: [span] }] }] };
  const answer = await suite.server.request('POST', '/v1/traces', body, { authorization: `Bearer ${initKey}` });
  expect(answer.status).toBe(200);
}

// The API's refusals the scenario provokes on purpose; Chromium logs each failed fetch as an error.
const expectedRefusal = /^Failed to load resource: the server responded with a status of (401|403|422|429)/;

it.skipIf(!available)(
  'signs in, administers keys, members, prices and projects, reads the audit log, signs out, and sets a password from a link',
  async () => {
    await sendTrace('admin smoke');
    const { baseUrl } = suite.server;
    const context = await suite.browser!.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    const traffic = await onlyFrom(context, baseUrl);
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && !expectedRefusal.test(message.text()) && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));

    // Not signed in: `/` gives way to the login page.
    await page.goto(`${baseUrl}/`);
    await page.waitForURL(`${baseUrl}/login`);
    await page.getByRole('heading', { name: 'Sign in to Assay' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'login');

    // Refusals: a wrong password (401), then the throttle (429) with its Retry-After in words.
    const email = page.getByLabel('Email');
    const password = page.getByLabel('Password');
    const signIn = page.getByRole('button', { name: 'Sign in' });
    const alert = page.getByRole('alert');
    await email.fill('nobody@example.com');
    await password.fill('not the password');
    for (let attempt = 0; attempt < 2; attempt++) {
      await signIn.click();
      await alert.getByText('Wrong email or password.').waitFor();
    }
    await signIn.click();
    await alert.getByText('Too many failed sign-ins. Try again in 15 minutes.').waitFor();
    await email.fill(admin.email);
    await signIn.click();
    await alert.getByText('Wrong email or password.').waitFor();

    // Signed in: the default project's traces, the user and "Sign out" on top.
    await password.fill(admin.password);
    await signIn.click();
    await page.waitForURL(/\/p\/[^/]+\/traces$/);
    const projectId = new URL(page.url()).pathname.split('/')[2];
    await page.getByRole('link', { name: 'admin smoke' }).waitFor();
    await page.getByText(admin.email).waitFor();

    // A key: its secret shown once and copied, then listed by its prefix; it works.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Admin', exact: true }).click();
    await page.waitForURL(`${baseUrl}/p/${projectId}/admin/keys`);
    await page.getByLabel('Name').fill('ci-exporter');
    await page.getByRole('checkbox', { name: /ingest/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('region', { name: /^New key / });
    await shown.waitFor();
    const secret = await shown.getByRole('textbox').inputValue();
    await shown.getByRole('button', { name: 'Copy' }).click();
    await shown.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const keys = page.getByRole('table', { name: "The project's API keys" });
    const row = keys.getByRole('row', { name: /ci-exporter/ });
    await row.waitFor();
    const prefix = (await row.locator('code').innerText()).replace(/…$/, '');
    expect(secret.startsWith(prefix) && prefix.length > 4).toBe(true);
    expect(await row.innerText()).toMatch(/read, ingest[\s\S]*never/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshot(page, 'admin-keys');
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    expect(await shown.count()).toBe(0);
    expect((await suite.server.request('GET', '/apps', undefined, { authorization: `Bearer ${secret}` })).status).toBe(200);

    // A member, by email with a role, and a one-time link for their password.
    const admins = page.getByRole('navigation', { name: 'Administration' });
    await admins.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(/\/admin\/members$/);
    const addForm = page.getByRole('form', { name: 'Add a member' });
    await addForm.getByLabel('Email').fill('Ana@Example.com');
    await addForm.getByLabel('Role').selectOption('VIEWER');
    await addForm.getByRole('button', { name: 'Add member' }).click();
    const ana = page.getByRole('row', { name: /ana@example\.com/ });
    await ana.waitFor();
    expect(await ana.getByRole('combobox', { name: 'Role of ana@example.com' }).inputValue()).toBe('VIEWER');
    await ana.getByRole('button', { name: 'Password link' }).click();
    const link = await page
      .getByRole('region', { name: /^Password link for ana@example\.com/ })
      .getByRole('textbox')
      .inputValue();
    expect(link).toMatch(new RegExp(`^${baseUrl}/set-password#token=.+`));
    await screenshot(page, 'admin-members');
    // Adding the same person again is refused, and said so.
    await addForm.getByLabel('Email').fill('ana@example.com');
    await addForm.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('alert').waitFor();

    // The audit log has both, newest first; a filter by action goes into the URL.
    await admins.getByRole('link', { name: 'Audit log' }).click();
    const audit = page.getByRole('table', { name: 'Audit events, newest first' });
    await audit.waitFor();
    const actions = await audit.locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(actions.slice(0, 3)).toEqual(['password_link.issued', 'membership.added', 'user.created']);
    expect(actions).toContain('api_key.created');
    expect(await audit.getByRole('row', { name: /api_key\.created.*ci-exporter/ }).count()).toBe(1);
    await screenshot(page, 'admin-audit');
    await page.getByLabel('Action').selectOption('MEMBERSHIP_ADDED');
    await page.waitForURL(/\/admin\/audit\?action=MEMBERSHIP_ADDED$/);
    await expect.poll(async () => new Set(await audit.locator('tbody tr td:nth-child(2)').allInnerTexts())).toEqual(new Set(['membership.added']));

    // A price of the project's own, listed before the built-in table.
    await admins.getByRole('link', { name: 'Prices' }).click();
    await page.getByLabel('Model').fill('e2e-model');
    await page.getByLabel('Input', { exact: true }).fill('1.5');
    await page.getByLabel('Output', { exact: true }).fill('6');
    await page.getByRole('button', { name: 'Save price' }).click();
    const price = page.getByRole('row', { name: /e2e-model/ });
    await price.waitFor();
    expect(await price.innerText()).toMatch(/\$1\.5\s+\$6\s+–\s+always\s+project/);
    await screenshot(page, 'admin-prices');

    // A project, its first key shown once; the switcher then offers it.
    await admins.getByRole('link', { name: 'Projects' }).click();
    await page.getByLabel('Name').fill('second project');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('region', { name: /^First key of second project/ }).waitFor();
    await page.getByRole('link', { name: 'second project' }).waitFor();
    await screenshot(page, 'admin-projects');
    await page.getByRole('button', { name: 'Done' }).click();
    // Now a member of two projects, the admin's `/` names none: their memberships pick "default".
    await page.goto(`${baseUrl}/`);
    await page.waitForURL(`${baseUrl}/p/${projectId}/traces`);
    await page.getByRole('combobox', { name: 'Project' }).waitFor();
    await page.goto(`${baseUrl}/p/${projectId}/admin/keys`);

    // Revoking asks first, then the key is gone and refused.
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect((await suite.server.request('GET', '/apps', undefined, { authorization: `Bearer ${secret}` })).status).toBe(401);

    // Signing out comes back to the login page; the session is over.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${baseUrl}/login`);
    await page.goto(`${baseUrl}/p/${projectId}/admin/keys`);
    await page.waitForURL(`${baseUrl}/login?next=${encodeURIComponent(`/p/${projectId}/admin/keys`)}`);

    // The link: the password policy's 422 beside the field, then set, and signed in with it.
    await page.goto(link);
    await page.getByLabel('Your email').fill('ana@example.com');
    await page.getByLabel('New password').fill('too short');
    await page.getByLabel('Repeat it').fill('too short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.locator('.error-text').getByText(/12/).waitFor();
    expect(await page.getByLabel('New password').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('New password').fill('a viewer password');
    await page.getByLabel('Repeat it').fill('a viewer password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${baseUrl}/p/${projectId}/traces`);
    await page.getByText('ana@example.com').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // A viewer is offered no administration, and the API refuses it anyway.
    expect(await page.getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);
    await page.goto(`${baseUrl}/p/${projectId}/admin/keys`);
    await page.getByRole('alert').getByText(/admin/).waitFor();
    // The link worked once.
    await page.goto(link);
    await page.getByLabel('Your email').fill('ana@example.com');
    await page.getByLabel('New password').fill('another password');
    await page.getByLabel('Repeat it').fill('another password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page
      .getByRole('alert')
      .getByText(/Ask a project admin for a new link\./)
      .waitFor();

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  60_000,
);
