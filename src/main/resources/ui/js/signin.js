// Sign-in of people (src/site/console.md#signing-in): who is signed in, sending the person to the
// identity provider when the service asks for it (keeping the console address to come back to),
// and sign-out. The session itself is an HttpOnly cookie no script can read; GET /auth/session says
// whose it is, which roles it has, and the CSRF token to send on changes.

import { setCsrfToken } from './api.js';

const SIGNED_OUT = 'trailproof.signed-out';
const REDIRECTED = 'trailproof.sign-in-sent';
/** A second trip to sign in this soon after the first means the cookie did not stick: say so instead of looping. */
const LOOP_MS = 15000;

let current = null;
let available = false;

function storage() {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}

/** The signed-in session ({subject, email, name, roles, csrf_token}) or null. */
export function session() {
  return current;
}

/** Whether this service signs people in (GET /auth/session exists). */
export function signInAvailable() {
  return available;
}

/** Whether the session's roles include `role` (roles arrive with nesting applied). */
export function hasRole(role) {
  return Boolean(current && Array.isArray(current.roles) && current.roles.includes(role));
}

/** How the header names the person: the email, else the name, else the subject. */
export function displayName(s) {
  return String(s.email || s.name || s.subject || '');
}

/** Asks the service who is signed in; never throws. */
export async function loadSession() {
  current = null;
  setCsrfToken('');
  let response;
  try {
    response = await fetch('/auth/session', { cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer' });
  } catch {
    available = false;
    return null;
  }
  available = response.status === 200 || response.status === 401;
  if (response.status !== 200) {
    return null;
  }
  try {
    const body = await response.json();
    if (body && typeof body === 'object' && typeof body.subject === 'string') {
      current = body;
      setCsrfToken(body.csrf_token);
      storage()?.removeItem(REDIRECTED);
      storage()?.removeItem(SIGNED_OUT);
    }
  } catch {
    current = null;
  }
  return current;
}

/** The sign-in address that comes back to this very console address. */
export function signInUrl() {
  return `/auth/login?return=${encodeURIComponent(location.pathname + location.search)}`;
}

/** True when the person signed out in this tab and has not signed in since: the console waits for them. */
export function signedOutHere() {
  return storage()?.getItem(SIGNED_OUT) === '1';
}

/**
 * Sends the browser to sign in, coming back to this address. False (and nothing done) when it was
 * sent moments ago already, so a browser that drops the cookie does not loop.
 */
export function goSignIn() {
  const store = storage();
  const last = Number(store?.getItem(REDIRECTED) || 0);
  if (Date.now() - last < LOOP_MS) {
    return false;
  }
  store?.setItem(REDIRECTED, String(Date.now()));
  store?.removeItem(SIGNED_OUT);
  location.assign(signInUrl());
  return true;
}

/** Sends the browser to sign in now, whatever happened moments ago (the person asked). */
export function signInNow() {
  storage()?.removeItem(REDIRECTED);
  goSignIn();
}

/** Ends the session on the service, then at the provider when it has an end-session address. */
export async function signOut() {
  const token = current ? current.csrf_token : '';
  let target = './';
  try {
    const response = await fetch('/auth/logout', {
      method: 'POST', cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer',
      headers: token ? { 'X-CSRF-Token': token } : {},
    });
    const body = await response.json();
    if (body && typeof body.end_session_url === 'string' && /^https?:\/\//.test(body.end_session_url)) {
      target = body.end_session_url;
    }
  } catch {
    // the cookie is dropped by the answer or ends with its time-out; the provider is still visited when known
  }
  current = null;
  setCsrfToken('');
  storage()?.setItem(SIGNED_OUT, '1');
  location.assign(target);
}
