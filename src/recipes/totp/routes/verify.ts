import type { FastifyPluginAsync } from 'fastify';
import { defineRoute } from '../../../http/route.js';
import { cdiAtLeast, type CdiVersion } from '../../../http/cdi-version.js';
import { checkNotEmpty, TextError, VerifyCodeBody, VerifyCodeResponse, VerifyDeviceBody, VerifyDeviceResponse } from '../schemas.js';

// Before cdi 5.0 the failure answers carry no attempt counts (M-5.4).
function forVersion<T extends { status: string }>(result: T, cdiVersion: CdiVersion): T {
  if (cdiAtLeast(cdiVersion, '5.0') || (result.status !== 'INVALID_TOTP_ERROR' && result.status !== 'LIMIT_REACHED_ERROR')) return result;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { currentNumberOfFailedAttempts, maxNumberOfFailedAttempts, ...rest } = result as T & Record<string, unknown>;
  return rest as unknown as T;
}

// Codes are verified per tenant: the used-code ledger and the wrong-code limit are the tenant's (M-5.3).
const verifyRoutes: FastifyPluginAsync = async (app) => {
  const totp = () => app.services.totp;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/totp/device/verify',
    schema: { body: VerifyDeviceBody, response: { 200: VerifyDeviceResponse, 400: TextError } },
    parse: (request) => {
      checkNotEmpty({ userId: request.body.userId, deviceName: request.body.deviceName });
      return { ...request.body, tenantId: request.tenantId, cdiVersion: request.cdiVersion };
    },
    scope: 'tenant',
    handle: async (input) =>
      forVersion(await totp().verifyDevice(input.tenantId, input.userId, input.deviceName, input.totp), input.cdiVersion),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/totp/verify',
    schema: { body: VerifyCodeBody, response: { 200: VerifyCodeResponse, 400: TextError } },
    parse: (request) => {
      checkNotEmpty({ userId: request.body.userId });
      return { ...request.body, tenantId: request.tenantId, cdiVersion: request.cdiVersion };
    },
    scope: 'tenant',
    handle: async (input) => forVersion(await totp().verifyCode(input.tenantId, input.userId, input.totp), input.cdiVersion),
  });
};

export default verifyRoutes;
