// The shape checks the reference runs before verification (its CredentialsValidator), extended to every field the
// library reads, so a malformed credential is INVALID_CREDENTIALS_ERROR naming the field rather than a library throw.

const base64url = /^[A-Za-z0-9_-]*={0,2}$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textProblem(holder: Json, field: string, path: string, optional = false): string | undefined {
  const value = holder[field];
  if (value === undefined || value === null) return optional ? undefined : `${path} is missing`;
  if (typeof value !== 'string') return `${path} must be a string`;
  if (value === '' && !optional) return `${path} is empty`;
  if (!base64url.test(value)) return `${path} has to be base64url encoded`;
  return undefined;
}

function commonProblem(credential: unknown): string | undefined {
  if (!isObject(credential)) return 'credential must be an object';
  const idProblem = textProblem(credential, 'id', 'credential.id');
  if (idProblem) return idProblem;
  if ((credential.id as string).length > 1364) return 'credential.id is longer than 1023 bytes';
  if (credential.rawId !== undefined && credential.rawId !== credential.id) return 'credential.rawId must equal credential.id';
  if (credential.type === undefined || credential.type === null) return 'credential.type is missing';
  if (credential.type !== 'public-key') return `credential.type '${String(credential.type)}' is not supported, it must be 'public-key'`;
  if (!isObject(credential.response)) return 'credential.response must be an object';
  return textProblem(credential.response, 'clientDataJSON', 'credential.response.clientDataJSON');
}

export function registrationShapeProblem(credential: unknown): string | undefined {
  const problem = commonProblem(credential);
  if (problem) return problem;
  const response = (credential as Json).response as Json;
  const attestation = textProblem(response, 'attestationObject', 'credential.response.attestationObject');
  if (attestation) return attestation;
  if (
    response.transports !== undefined &&
    !(Array.isArray(response.transports) && response.transports.every((t) => typeof t === 'string'))
  ) {
    return 'credential.response.transports must be an array of strings';
  }
  return undefined;
}

export function assertionShapeProblem(credential: unknown): string | undefined {
  const problem = commonProblem(credential);
  if (problem) return problem;
  const response = (credential as Json).response as Json;
  return (
    textProblem(response, 'authenticatorData', 'credential.response.authenticatorData') ??
    textProblem(response, 'signature', 'credential.response.signature') ??
    textProblem(response, 'userHandle', 'credential.response.userHandle', true)
  );
}
