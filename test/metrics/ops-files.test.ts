import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { call, useTestApp } from '../helper.js';

// The dashboard and the alert rules under ops/ query only metrics the core exports: each name in their expressions
// is one of the `# TYPE` lines of GET /metrics (a histogram's _bucket, _sum and _count included).
const dashboard = JSON.parse(fs.readFileSync('ops/grafana/identity-core-cutover.json', 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const rules = parse(fs.readFileSync('ops/prometheus/alerts.yml', 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
const expressions = [
  ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: panel.title, expr: target.expr }))),
  ...rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: rule.alert, expr: rule.expr }))),
];

describe('ops/: the dashboard and alert rules', () => {
  const t = useTestApp();

  it('name only metrics the core exports', async () => {
    const reply = await call(t.app, 'GET', '/metrics');
    expect(reply.statusCode).toBe(200);
    const exported = new Set<string>();
    for (const [, name, type] of reply.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(`${name}${suffix}`);
    }
    const unknown = expressions.flatMap(({ where, expr }) =>
      [...expr.matchAll(/\b(identity_core_[a-z_]+)\b/g)].filter(([, name]) => !exported.has(name)).map(([, name]) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
    expect(expressions.length).toBeGreaterThanOrEqual(15);
  });

  it('cover imports, lazy adoption, the session bridge, sign-ins by algorithm, refreshes and hashing limits', () => {
    const all = expressions.map(({ expr }) => expr).join('\n');
    for (const metric of [
      'identity_core_bulk_import_users_total',
      'identity_core_lazy_migrated_total',
      'identity_core_session_bridge_exchanges_total',
      'identity_core_password_verifications_total',
      'identity_core_hashing_rejections_total',
    ])
      expect(all, metric).toContain(metric);
    expect(all).toContain('/recipe/session/refresh');
  });
});
