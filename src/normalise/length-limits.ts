import { coreError } from '../errors.js';

// The reference core's column widths. It answers an over-long value with a database 500; we name the field
// instead (a 500 is a bug here), before anything is written.
export const lengthLimits = {
  thirdPartyId: 28,
  thirdPartyUserId: 256,
  email: 256,
  phoneNumber: 256,
  externalUserId: 128,
  // Not the reference core's 256: every format the core parses fits (an HMAC with a 1,024-byte key is ~1,470
  // characters, a lazy pointer with its three parts at their bounds ~1,050), and both import routes apply it.
  passwordHash: 2048,
} as const;

export function assertMaxLength(field: keyof typeof lengthLimits, value: string | null | undefined): void {
  // Code points, as PostgreSQL's char_length counts them.
  if (value != null && [...value].length > lengthLimits[field]) {
    throw coreError('FIELD_TOO_LONG', field, lengthLimits[field]);
  }
}
