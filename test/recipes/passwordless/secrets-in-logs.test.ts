import { describe, expect, it } from 'vitest';
import { call, useTestApp } from '../../helper.js';
import { consumeWithCode, consumeWithLink, createCode } from './flow-helpers.js';

describe('passwordless secrets and the log', () => {
  const t = useTestApp({ log_level: 'DEBUG' });

  it('never writes a deviceId, linkCode or userInputCode, in any encoding, even at DEBUG', async () => {
    const first = await createCode(t.app, { email: 'a@example.com', userInputCode: 'first-secret-code' });
    const resent = await createCode(t.app, { deviceId: first.deviceId, userInputCode: 'second-secret-code' });
    const phone = await createCode(t.app, { phoneNumber: '+14155552671', userInputCode: 'third-secret-code' });
    await call(t.app, 'GET', '/recipe/signinup/codes', { query: { deviceId: first.deviceId } });
    await call(t.app, 'GET', `/recipe/signinup/codes?deviceId=${first.deviceId}`);
    await consumeWithCode(t.app, first, 'wrong-secret-code', 'check');
    await consumeWithCode(t.app, first, 'second-secret-code', 'check');
    await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: first.preAuthSessionId, linkCode: `${first.linkCode}##` },
    });
    await call(t.app, 'POST', '/recipe/signinup/code/consume', {
      body: { preAuthSessionId: 'x', deviceId: first.deviceId, userInputCode: 'first-secret-code' },
    });
    expect((await consumeWithCode(t.app, first, 'first-secret-code')).json.status).toBe('OK');
    expect((await consumeWithLink(t.app, phone)).json.status).toBe('OK');
    await call(t.app, 'POST', '/recipe/signinup/code', { body: { deviceId: first.deviceId, userInputCode: 'fourth-secret-code' } });

    const logs = t.logs.join('');
    expect(logs).toContain('incoming request');
    expect(logs).toContain('passwordless user created');
    const secrets = [first, resent, phone].flatMap((code) => [code.deviceId, code.linkCode, code.userInputCode]);
    secrets.push('wrong-secret-code', 'fourth-secret-code');
    for (const secret of secrets) {
      for (const form of new Set([secret, encodeURIComponent(secret), secret.slice(0, 20), JSON.stringify(secret).slice(1, -1)])) {
        expect(logs, `log contains ${form}`).not.toContain(form);
      }
    }
  });
});
