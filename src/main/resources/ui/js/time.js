// Times shown in UTC (the default) or in the browser's local zone; the choice is kept in
// localStorage as a preference, not in the address (a shared link shows the reader's choice).
// The stored text of a time is always kept in the element's title, unchanged.

const ZONE_STORAGE = 'trailproof.time-zone';
let local = readPreference();

function readPreference() {
  try {
    return localStorage.getItem(ZONE_STORAGE) === 'local';
  } catch {
    return false;
  }
}

export function showsLocal() {
  return local;
}

export function setShowsLocal(value) {
  local = Boolean(value);
  try {
    localStorage.setItem(ZONE_STORAGE, local ? 'local' : 'utc');
  } catch {
    // a preference that cannot be kept lasts until the page is closed
  }
}

/**
 * Milliseconds since the epoch of an RFC 3339 / ISO 8601 time as the service stores it (no offset
 * means UTC, src/site/events.md#accepted-fields; fractions longer than milliseconds are cut), or NaN.
 */
export function parseInstant(text) {
  if (typeof text !== 'string') {
    return NaN;
  }
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?)?(Z|z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!m) {
    return NaN;
  }
  const [, date, hm = '00:00', sec = ':00', fraction = '', zone = 'Z'] = m;
  const millis = fraction ? `.${fraction.slice(1, 4).padEnd(3, '0')}` : '';
  const offset = /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
  return Date.parse(`${date}T${hm}${sec}${millis}${offset}`);
}

function pad(n, width = 2) {
  return String(n).padStart(width, '0');
}

/** A time for display in the chosen zone; the text as stored when it is not a time. */
export function formatTime(text) {
  const ms = parseInstant(text);
  if (Number.isNaN(ms)) {
    return text === undefined || text === null ? '' : String(text);
  }
  return formatMillis(ms);
}

export function formatMillis(ms) {
  const d = new Date(ms);
  if (!local) {
    return `${d.toISOString().slice(0, 23).replace('T', ' ')} UTC`;
  }
  const minutes = -d.getTimezoneOffset();
  const sign = minutes >= 0 ? '+' : '-';
  const offset = `${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:`
    + `${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)} ${offset}`;
}

/** An instant as the API's filters take it (UTC, Z). */
export function isoUtc(ms) {
  return new Date(ms).toISOString();
}
