import type { StoredUser } from '../../users/repository.js';
import type { SignedIn } from '../../users/user-object.js';
import type { CodeAttemptFailure, ConsumedDevice } from './schemas.js';

// Answers that carry no stored user are the route schemas' own types.
export type { CheckResult, CodeAttemptFailure, ConsumedDevice, CreateCodeResult, DeviceView } from './schemas.js';

/** What a code is created for: a new device for an email or phone number, or another code for a device. */
export type CodeTarget = { kind: 'email' | 'phoneNumber' | 'deviceId'; value: string };

/** The two forms of consume and check (contract §5.3). */
export type RedeemInput =
  | { tenantId: string; preAuthSessionId: string; linkCode: string }
  | { tenantId: string; preAuthSessionId: string; deviceId: string; userInputCode: string };

export type DeviceLookup = { kind: 'email' | 'phoneNumber' | 'deviceId' | 'preAuthSessionId'; value: string };

export type CodeToRemove = { codeId: string } | { preAuthSessionId: string };

/** undefined leaves a field unchanged, null clears it. */
export interface ContactUpdate {
  id: string;
  email?: string | null;
  phoneNumber?: string | null;
}

export type UserLookup = { kind: 'userId' | 'email' | 'phoneNumber'; value: string };

export type ConsumeResult = ({ status: 'OK'; createdNewUser: boolean; consumedDevice: ConsumedDevice } & SignedIn) | CodeAttemptFailure;

export const emailHeldByAnotherPrimaryUser = 'New email is associated with another primary user ID';
export const phoneNumberHeldByAnotherPrimaryUser = 'New phone number is associated with another primary user ID';

export type UpdateUserResult =
  | { status: 'OK' | 'UNKNOWN_USER_ID_ERROR' | 'EMAIL_ALREADY_EXISTS_ERROR' | 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: typeof emailHeldByAnotherPrimaryUser }
  | { status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR'; reason: typeof phoneNumberHeldByAnotherPrimaryUser };

export type FindUserResult =
  { status: 'OK'; user: StoredUser } | { status: 'UNKNOWN_USER_ID_ERROR' | 'UNKNOWN_EMAIL_ERROR' | 'UNKNOWN_PHONE_NUMBER_ERROR' };
