import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, useTestApp } from '../../helper.js';

interface Vector {
  secretEncoding: string;
  secretKey: string;
  algorithm: string;
  digits: number;
  period: number;
  fromUrl?: boolean;
  codes: { unixTime: number; code: string }[];
}

// Codes from oathtool (see vectors/README.md), for keys in every accepted encoding.
const vectors = JSON.parse(fs.readFileSync(new URL('./vectors/vectors.json', import.meta.url), 'utf8')) as Vector[];

describe('imported keys give the codes oathtool computes', () => {
  const t = useTestApp();

  it.each(vectors.map((vector, index) => [index, vector.secretEncoding, vector] as const))(
    'vector %i (%s)',
    async (index, _encoding, vector) => {
      const userId = `oath-${index}`;
      const body = {
        userId,
        deviceName: 'd',
        skew: 0,
        period: vector.period,
        secretKey: vector.secretKey,
        secretEncoding: vector.secretEncoding,
        ...(!vector.fromUrl && { algorithm: vector.algorithm, digits: vector.digits }),
      };
      const imported = await call(t.app, 'POST', '/recipe/totp/device/import', { body });
      expect(imported.json).toEqual({ status: 'OK', deviceName: 'd' });
      const stored = await t.db.pool.query('SELECT algorithm, digits, period FROM totp_devices WHERE user_id = $1', [userId]);
      expect(stored.rows).toEqual([{ algorithm: vector.algorithm, digits: vector.digits, period: vector.period }]);
      for (const { unixTime, code } of vector.codes) {
        t.clock.nowMs = unixTime * 1000;
        const reply = await call(t.app, 'POST', '/public/recipe/totp/verify', { body: { userId, totp: code } });
        expect(reply.json, `T=${unixTime}`).toEqual({ status: 'OK' });
      }
    },
  );
});
