/** The token of an `Authorization: Bearer <token>` header (RFC 6750 2.1), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** The first value of a query or form field as a string: a repeated field counts once; anything else is undefined. */
export function firstValue(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}
