import type { Config } from '../../config/config.js';

// W-5: the relying-party ids and origins this core serves. Unset lists mean the reference's rule: any RP ID, and an
// origin whose host is the RP ID or a subdomain of it.
export interface RelyingParties {
  rpIds: readonly string[] | undefined;
  origins: readonly string[] | undefined;
}

function commaList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
}

export function relyingPartiesOf(config: Pick<Config, 'webauthn_rp_ids' | 'webauthn_origins'>): RelyingParties {
  return {
    rpIds: commaList(config.webauthn_rp_ids)?.map((id) => id.toLowerCase()),
    origins: commaList(config.webauthn_origins)?.map((origin) => origin.replace(/\/+$/, '')),
  };
}

const androidOrigin = 'android:apk-key-hash:';

// An Android app's origin is the base64url SHA-256 of its signing certificate (43 characters, 32 bytes).
function androidOriginProblem(origin: string): string | undefined {
  const hash = origin.slice(androidOrigin.length);
  if (!/^[A-Za-z0-9_-]{43}$/.test(hash)) return 'an Android origin must carry the base64url SHA-256 (43 characters) of the app key';
  return undefined;
}

function hostIsUnder(host: string, rpId: string): boolean {
  return host === rpId || host.endsWith(`.${rpId}`);
}

/** Why options for this RP ID and origin are refused (INVALID_OPTIONS_ERROR's reason), or undefined. */
export function ceremonyProblem(parties: RelyingParties, rpId: string, origin: string): string | undefined {
  if (rpId === '') return 'relyingPartyId cannot be empty';
  if (parties.rpIds && !parties.rpIds.includes(rpId.toLowerCase())) {
    return `relyingPartyId '${rpId}' is not one of the relying-party ids in the setting webauthn_rp_ids`;
  }
  if (parties.origins && !parties.origins.includes(origin.replace(/\/+$/, ''))) {
    return `origin '${origin}' is not one of the origins in the setting webauthn_origins`;
  }
  if (origin.startsWith(androidOrigin)) return androidOriginProblem(origin);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return 'origin has to be a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'origin must be an http(s) URL';
  if (!hostIsUnder(url.hostname.toLowerCase(), rpId.toLowerCase())) return 'origin does not match relyingPartyId';
  return undefined;
}

/** Why an imported credential's RP ID is refused, naming the setting, or undefined. */
export function importedRpIdProblem(parties: RelyingParties, rpId: string): string | undefined {
  if (!parties.rpIds) return `rpId '${rpId}' cannot be imported: the setting webauthn_rp_ids lists no relying-party id`;
  if (!parties.rpIds.includes(rpId.toLowerCase())) {
    return `rpId '${rpId}' is not one of the relying-party ids in the setting webauthn_rp_ids (${parties.rpIds.join(', ')})`;
  }
  return undefined;
}
