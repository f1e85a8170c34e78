// The console's only way to the service: the public API under /v1 (src/site/http-api.md), with the API key
// typed by the user and kept in sessionStorage (gone when the tab closes; never in the URL, never
// in localStorage), or the sign-in session's cookie (which no script can read) plus its CSRF token,
// sent on every request that changes anything. Every failure becomes an ApiError carrying the
// server's own sentence.

const KEY_STORAGE = 'trailproof.api-key';

/** The signed-in session's CSRF token (src/site/sign-in.md#sessions-cookies-and-csrf), or ''. */
let csrfToken = '';

export function setCsrfToken(token) {
  csrfToken = typeof token === 'string' ? token : '';
}

/** Headers of a request that changes something: the key, or the session's CSRF token. */
export function changeHeaders() {
  return { ...authHeaders(), ...(csrfToken ? { 'X-CSRF-Token': csrfToken } : {}) };
}

/** A refused or failed request: status (0 when the server could not be reached) and one sentence. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export function apiKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE) || '';
  } catch {
    return ''; // storage disabled: requests go without a key, and a 401 says so
  }
}

export function setApiKey(key) {
  try {
    if (key) {
      sessionStorage.setItem(KEY_STORAGE, key);
    } else {
      sessionStorage.removeItem(KEY_STORAGE);
    }
  } catch {
    // nothing to keep it in; the user is asked again on the next 401
  }
}

/** path plus the query string of params: an object or [name, value] pairs; null, undefined and '' are left out. */
export function apiUrl(path, params = {}) {
  const query = new URLSearchParams();
  const entries = Array.isArray(params) ? params : Object.entries(params);
  for (const [name, value] of entries) {
    if (value !== null && value !== undefined && value !== '') {
      query.append(name, String(value));
    }
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/** Authorization header for the stored key (when there is one). */
export function authHeaders() {
  const key = apiKey();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

/**
 * Sends a GET and returns the Response when it is 2xx; otherwise throws ApiError with the
 * server's {"error"} sentence. An abort (signal) is rethrown as is.
 */
export async function get(url, { signal } = {}) {
  let response;
  try {
    response = await fetch(url, {
      headers: authHeaders(), signal, cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer',
    });
  } catch (e) {
    if (e.name === 'AbortError') {
      throw e;
    }
    throw new ApiError(0, `the server cannot be reached (${e.message})`);
  }
  if (!response.ok) {
    throw new ApiError(response.status, await errorSentence(response));
  }
  return response;
}

/**
 * Sends a POST of a JSON body and returns the parsed JSON answer when it is 2xx (null when it has no
 * JSON body); otherwise throws ApiError with the server's {"error"} sentence.
 */
export async function postJson(url, body, { signal } = {}) {
  let response;
  try {
    response = await fetch(url, {
      method: 'POST', body: JSON.stringify(body), signal, cache: 'no-store', credentials: 'same-origin',
      referrerPolicy: 'no-referrer', headers: { ...changeHeaders(), 'Content-Type': 'application/json' },
    });
  } catch (e) {
    if (e.name === 'AbortError') {
      throw e;
    }
    throw new ApiError(0, `the server cannot be reached (${e.message})`);
  }
  if (!response.ok) {
    throw new ApiError(response.status, await errorSentence(response));
  }
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/** GET and parse JSON. */
export async function getJson(url, options) {
  const response = await get(url, options);
  try {
    return await response.json();
  } catch {
    throw new ApiError(response.status, 'the server answered something that is not JSON');
  }
}

async function errorSentence(response) {
  try {
    const body = await response.json();
    if (body && typeof body.error === 'string' && body.error) {
      return body.error;
    }
  } catch {
    // not the API's error shape
  }
  return `the server answered ${response.status} ${response.statusText}`.trim();
}
