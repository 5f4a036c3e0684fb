/** A refusal of the API: its status, code and message, and the request field the message names. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** The field of the request the API names ("Invalid display_name: ...", "Field 'host_path' is ..."), if any. */
  get field(): string | null {
    const named = /^(?:Invalid|Field) '?([A-Za-z_]+)'?/.exec(this.message);
    if (named) return named[1];
    // a second rule for the same principal and path
    if (this.code === 'Exists' && /access rule/i.test(this.message)) return 'path';
    return null;
  }
}

/** Raised when the person's token no longer works: the console signs them in again. */
export class SignedOutError extends Error {}

export type Json = Record<string, unknown>;

/**
 * The public APIs as one signed-in person calls them: the transfer API (v0.10) with their
 * transfer token and the identities API with their auth token, over HTTP like any other client.
 */
export class PersonApi {
  constructor(
    private readonly apiUrl: string,
    private readonly authUrl: string,
    private readonly tokens: { transfer: string; auth: string },
  ) {}

  transfer(method: string, path: string, body?: Json, query?: Record<string, string | number | undefined>): Promise<Json> {
    return this.call(`${this.apiUrl}/v0.10${path}`, this.tokens.transfer, method, body, query);
  }

  /** Identities by username (lower case) or by id; unknown ones are left out. */
  async identities(by: 'usernames' | 'ids', values: string[]): Promise<{ id: string; username: string; name: string | null }[]> {
    if (values.length === 0) return [];
    const found = await this.call(`${this.authUrl}/v2/api/identities`, this.tokens.auth, 'GET', undefined, { [by]: values.join(',') });
    return found.identities as { id: string; username: string; name: string | null }[];
  }

  private async call(url: string, token: string, method: string, body?: Json, query?: Record<string, string | number | undefined>): Promise<Json> {
    const target = new URL(url);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') target.searchParams.set(name, String(value));
    let response: Response;
    try {
      response = await fetch(target, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body && { 'content-type': 'application/json' }) },
        body: body && JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      // down, unreachable or too slow: a page that says so, not an internal error
      throw new ApiError(502, 'Unavailable', `The service at ${target.origin} did not answer. Try again in a moment.`);
    }
    const text = await response.text();
    let document: unknown = null;
    try {
      document = JSON.parse(text);
    } catch {
      // an answer that is not JSON (a proxy's page): the status says enough of a refusal
    }
    const fields: Json = document !== null && typeof document === 'object' && !Array.isArray(document) ? (document as Json) : {};
    if (response.status === 401) throw new SignedOutError('Your sign-in has ended');
    if (!response.ok) throw new ApiError(response.status, String(fields.code ?? response.status), String(fields.message ?? response.statusText));
    // a success that is no JSON document (a proxy's or another service's page) is no answer of the API
    if (fields !== document) throw new ApiError(502, 'Unavailable', `The service at ${target.origin} answered with something other than the API's JSON. Try again in a moment.`);
    return fields;
  }
}
