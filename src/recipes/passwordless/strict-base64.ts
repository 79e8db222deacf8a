// Buffer.from(text, 'base64') skips what it does not understand and never fails, so a mangled deviceId or
// linkCode would silently decode to other bytes; caller input is checked against one alphabet first.
const standardBody = /^[A-Za-z0-9+/]*$/;
const urlSafeBody = /^[A-Za-z0-9_-]*$/;

function decodeStrict(text: string, body: RegExp): Buffer | undefined {
  const padStart = text.indexOf('=');
  const unpadded = padStart === -1 ? text : text.slice(0, padStart);
  const padding = text.slice(unpadded.length);
  if (padding !== '' && (!/^={1,2}$/.test(padding) || text.length % 4 !== 0)) return undefined;
  if (unpadded.length % 4 === 1 || !body.test(unpadded)) return undefined;
  return Buffer.from(unpadded, body === standardBody ? 'base64' : 'base64url');
}

/** Standard alphabet (`+` `/`), padding optional but correct when present. */
export function decodeStandardBase64(text: string): Buffer | undefined {
  return decodeStrict(text, standardBody);
}

/** URL-safe alphabet (`-` `_`), padding optional but correct when present. */
export function decodeUrlSafeBase64(text: string): Buffer | undefined {
  return decodeStrict(text, urlSafeBody);
}
