// Says what is wrong with a base64 setting, so a startup error can name the problem without quoting the value
// (a signer key is a secret). Accepts what the hashing code decodes: either alphabet, padding optional.
export function describeBase64Problem(text: string): string | undefined {
  if (text === '') return 'it is empty';
  const padStart = text.indexOf('=');
  const body = padStart === -1 ? text : text.slice(0, padStart);
  const badIndex = [...body].findIndex((character) => !/[A-Za-z0-9+/_-]/.test(character));
  if (badIndex !== -1) return `character ${badIndex + 1} of ${text.length} is not in the base64 alphabet`;
  if (/[+/]/.test(body) && /[_-]/.test(body)) return 'it mixes the standard (+ /) and URL-safe (- _) alphabets';
  if (padStart !== -1 && (!/^={1,2}$/.test(text.slice(padStart)) || text.length % 4 !== 0)) {
    return `the padding is wrong ('=' may only end the value, once or twice, making its length a multiple of 4)`;
  }
  if (body.length % 4 === 1) return `its length (${body.length} characters without padding) cannot be base64`;
  return undefined;
}
