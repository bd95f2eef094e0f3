/** A small client for the API over real HTTP. */

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

export interface RequestOptions {
  /** Sent as X-API-Key; `null` sends no header. */
  apiKey?: string | null;
  /** Replaces the JSON body with this raw text. */
  raw?: string;
  method?: string;
  headers?: Record<string, string>;
}

export function apiClient(baseUrl: string, defaultKey: string) {
  return async function call(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse> {
    const apiKey = options.apiKey === undefined ? defaultKey : options.apiKey;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
    if (apiKey !== null) headers['x-api-key'] = apiKey;
    const method = options.method ?? 'POST';
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: method === 'GET' || method === 'HEAD' ? undefined : (options.raw ?? (body === undefined ? undefined : JSON.stringify(body))),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
}
