import type { ImportLoginMethod } from '../types.js';

// Plain words for what a completion added or what stopped it: values that identify an account, never a secret.

export function describeAddedMethod(method: ImportLoginMethod): string {
  if (method.recipeId === 'thirdparty') return `thirdparty login method (${method.thirdPartyId})`;
  return `${method.recipeId} login method`;
}

export function describeAccount(method: ImportLoginMethod): string {
  if (method.recipeId === 'emailpassword') return `email ${method.email}`;
  if (method.recipeId === 'thirdparty') return `${method.thirdPartyId} account ${method.thirdPartyUserId}`;
  return `passwordless ${[method.email, method.phoneNumber].filter((value) => value !== undefined).join(' / ')}`;
}

export function describeAccountInfo(type: string, value: string): string {
  if (type === 'email') return `email ${value}`;
  if (type === 'phone') return `phone number ${value}`;
  return `third-party account ${value.replace('::', '/')}`;
}

export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
