import { ConfigError } from '@partner-api/shared';
import { loadDashboardConfig } from './config';

describe('dashboard settings', () => {
  test('run locally with the development secret and the log mailer', () => {
    const config = loadDashboardConfig({});
    expect(config).toMatchObject({ HTTP_PORT: 4200, SECURE_COOKIES: true, DASHBOARD_MAILER: 'log' });
  });

  test('refuse production without a secret of its own, and smtp without a server', () => {
    expect(() => loadDashboardConfig({ NODE_ENV: 'production' })).toThrow(/DASHBOARD_SECRET must be set in production/);
    expect(() => loadDashboardConfig({ DASHBOARD_MAILER: 'smtp' })).toThrow(ConfigError);
    expect(loadDashboardConfig({ NODE_ENV: 'production', DASHBOARD_SECRET: 'x'.repeat(40), DASHBOARD_MAILER: 'smtp', SMTP_URL: 'smtp://mail.example.com:587' }).DASHBOARD_MAILER).toBe('smtp');
  });
});

test('the dashboard trusts no proxy unless TRUST_PROXY names one (D381)', () => {
  expect(loadDashboardConfig({}).TRUST_PROXY).toEqual([]);
  expect(() => loadDashboardConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY.*not an IP address or CIDR range/s);
});
