const BASE64_CODE = new Uint8Array(128);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') BASE64_CODE[char.charCodeAt(0)] = 1;

/**
 * Whether a character code (or byte) is of base64 or base64url's alphabet, padding aside: what a
 * key's base64 forms, and the runs that look like keys, are made of. Undefined (past a text's end) is not.
 */
export const isBase64Code = (code: number | undefined): boolean => code !== undefined && code < 128 && BASE64_CODE[code] === 1;
