/** The token of an `Authorization: Bearer <token>` header (RFC 6750 2.1), or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}
