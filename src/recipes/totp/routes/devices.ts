import type { FastifyPluginAsync } from 'fastify';
import { coreError } from '../../../errors.js';
import { defineRoute } from '../../../http/route.js';
import { requiredQuery } from '../../../http/query.js';
import { OptionalQuery } from '../../../http/schemas.js';
import {
  checkNotEmpty,
  checkSkewAndPeriod,
  CreateDeviceBody,
  CreateDeviceResponse,
  DeviceBody,
  ImportDeviceBody,
  ImportDeviceResponse,
  ListDevicesResponse,
  RemoveDeviceResponse,
  RenameDeviceBody,
  RenameDeviceResponse,
  StatusBulkResponse,
  TextError,
  UserIdsBody,
} from '../schemas.js';
import { normaliseSecret, secretError } from '../secret.js';

const MAX_BULK_USERS = 500;
// The reference's column (M-6): a longer text is refused before it is decoded.
const MAX_SECRET_TEXT = 256;

// Devices are app-wide (contract M-5.4); no licence is asked for (M-5.5).
const deviceRoutes: FastifyPluginAsync = async (app) => {
  const totp = () => app.services.totp;

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/totp/device',
    schema: { body: CreateDeviceBody, response: { 200: CreateDeviceResponse, 400: TextError } },
    parse: ({ body }) => {
      checkNotEmpty({ userId: body.userId, deviceName: body.deviceName });
      checkSkewAndPeriod(body.skew, body.period);
      return body;
    },
    scope: 'app',
    handle: async (body) => totp().createDevice(body),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/totp/device/import',
    schema: { body: ImportDeviceBody, response: { 200: ImportDeviceResponse, 400: TextError } },
    parse: ({ body }) => {
      checkNotEmpty({ userId: body.userId, deviceName: body.deviceName, secretKey: body.secretKey });
      checkSkewAndPeriod(body.skew, body.period);
      if (body.secretKey.length > MAX_SECRET_TEXT && body.secretEncoding !== 'otpauth' && !body.secretKey.startsWith('otpauth://')) {
        throw coreError('TOTP_SECRET_TEXT_TOO_LONG');
      }
      const result = normaliseSecret(body, app.services.config.totp_min_imported_secret_bits);
      if (!result.ok) throw secretError(result.refusal);
      return {
        settings: { ...body, period: result.secret.period ?? body.period },
        secret: result.secret,
        lastUsedTimeStep: body.lastUsedTimeStep,
      };
    },
    scope: 'app',
    handle: async ({ settings, secret, lastUsedTimeStep }) => totp().importDevice(settings, secret, lastUsedTimeStep),
  });

  defineRoute(app, {
    method: 'PUT',
    url: '/recipe/totp/device',
    schema: { body: RenameDeviceBody, response: { 200: RenameDeviceResponse, 400: TextError } },
    parse: ({ body }) => {
      checkNotEmpty(body);
      return body;
    },
    scope: 'app',
    handle: async (body) => totp().renameDevice(body.userId, body.existingDeviceName, body.newDeviceName),
  });

  defineRoute(app, {
    method: 'GET',
    url: '/recipe/totp/device/list',
    schema: { querystring: OptionalQuery('userId'), response: { 200: ListDevicesResponse, 400: TextError } },
    parse: ({ query }) => {
      const userId = requiredQuery(query, 'userId');
      checkNotEmpty({ userId });
      return userId;
    },
    scope: 'app',
    handle: async (userId) => totp().listDevices(userId),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/totp/device/remove',
    schema: { body: DeviceBody, response: { 200: RemoveDeviceResponse, 400: TextError } },
    parse: ({ body }) => {
      checkNotEmpty(body);
      return body;
    },
    scope: 'app',
    handle: async (body) => totp().removeDevice(body.userId, body.deviceName),
  });

  defineRoute(app, {
    method: 'POST',
    url: '/recipe/totp/device/status/bulk',
    schema: { body: UserIdsBody, response: { 200: StatusBulkResponse, 400: TextError } },
    parse: ({ body }) => {
      if (body.userIds.length > MAX_BULK_USERS) throw coreError('BULK_QUERY_TOO_MANY_USERS', MAX_BULK_USERS);
      if (!body.userIds.every((id) => typeof id === 'string')) throw coreError('USER_IDS_NOT_STRINGS');
      return body.userIds as string[];
    },
    scope: 'app',
    handle: async (userIds) => ({ status: 'OK' as const, users: await totp().verifiedStatus(userIds) }),
  });
};

export default deviceRoutes;
