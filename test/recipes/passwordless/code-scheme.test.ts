import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  encodeDeviceId,
  generateUserInputCode,
  issueCode,
  linkCodeBytesOf,
  linkCodeHashOf,
  newDeviceSecrets,
  preAuthSessionIdOf,
} from '../../../src/recipes/passwordless/code-scheme.js';

describe('passwordless code scheme (contract §5.1)', () => {
  it('reproduces the contract self-check vector', () => {
    const secrets = { deviceIdBytes: Buffer.alloc(32, 0x01), linkCodeSalt: Buffer.alloc(32, 0x02) };
    expect({
      deviceId: encodeDeviceId(secrets.deviceIdBytes),
      preAuthSessionId: preAuthSessionIdOf(secrets.deviceIdBytes),
      ...issueCode(secrets, '123456'),
    }).toEqual({
      deviceId: 'AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=',
      preAuthSessionId: 'cs1uhCLEB_ttCYaQ8RMLfe1-wvf14dML2dUh8BU2N5M',
      linkCode: '5F-gDG2dqpl_eq4dsP_kRyBN13fCEVVRhlGs8OCm6Q0',
      linkCodeHash: 'jmMJX7FfBv1-iujNe7LhSYMLORrUmf7tgQMAiBatYOI=',
    });
  });

  it('matches an independent computation of each step', () => {
    const deviceIdBytes = crypto.randomBytes(32);
    const linkCodeSalt = crypto.randomBytes(32);
    const hmac = crypto
      .createHmac('sha256', Buffer.concat([deviceIdBytes, linkCodeSalt]))
      .update('ünïcode-code')
      .digest();
    expect(linkCodeBytesOf(deviceIdBytes, linkCodeSalt, 'ünïcode-code')).toEqual(hmac);
    expect(preAuthSessionIdOf(deviceIdBytes)).toBe(crypto.createHash('sha256').update(deviceIdBytes).digest('base64url'));
    const hash = linkCodeHashOf(hmac);
    expect(Buffer.from(hash, 'base64url')).toEqual(crypto.createHash('sha256').update(hmac).digest());
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}=$/);
  });

  it('makes the salt matter: the same device and code give another link code with another salt', () => {
    const deviceIdBytes = crypto.randomBytes(32);
    const a = issueCode({ deviceIdBytes, linkCodeSalt: crypto.randomBytes(32) }, '123456');
    const b = issueCode({ deviceIdBytes, linkCodeSalt: crypto.randomBytes(32) }, '123456');
    expect(a.linkCode).not.toBe(b.linkCode);
  });

  it('creates 32-byte secrets and 44/43-character encodings', () => {
    const secrets = newDeviceSecrets();
    expect([secrets.deviceIdBytes.length, secrets.linkCodeSalt.length]).toEqual([32, 32]);
    expect(encodeDeviceId(secrets.deviceIdBytes)).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(preAuthSessionIdOf(secrets.deviceIdBytes)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issueCode(secrets, '1').linkCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('generates 6-digit codes using every digit', () => {
    const codes = Array.from({ length: 500 }, generateUserInputCode);
    for (const code of codes) expect(code).toMatch(/^[0-9]{6}$/);
    expect(new Set(codes.join('')).size).toBe(10);
  });
});
