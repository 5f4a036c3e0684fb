/** An error as a log line or a refusal names it: its system code (ECONNREFUSED, UND_ERR_...) first, where it has one. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: string }).code;
  return code ? `${code}: ${error.message}` : error.message;
}
