// The time histogram of the current search (src/site/console.md: GET /v1/search?histogram=<duration>,
// buckets aligned to multiples of the duration from the epoch, over the event timestamp, or the
// recorded_at of an event whose timestamp was erased).
// The bucket duration is picked so that the matches' time span makes at most MAX_BARS bars: from
// the since/until filters when both are set, else from the oldest and newest match (two one-row
// searches). Clicking a bar narrows the time range to that bucket.

import { apiUrl, getJson } from './api.js';
import { el, replace } from './dom.js';
import { searchParams } from './query.js';
import { formatMillis, isoUtc, parseInstant } from './time.js';

const MAX_BARS = 60;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Bucket durations, shortest first, with their ISO 8601 form. */
const LADDER = [
  ['PT1S', SECOND], ['PT10S', 10 * SECOND], ['PT1M', MINUTE], ['PT10M', 10 * MINUTE], ['PT1H', HOUR],
  ['PT6H', 6 * HOUR], ['P1D', DAY], ['P7D', 7 * DAY], ['P30D', 30 * DAY], ['P365D', 365 * DAY],
];

/** The shortest duration that covers spanMillis in at most MAX_BARS buckets. */
export function bucketFor(spanMillis) {
  const span = Math.max(1, spanMillis);
  return LADDER.find(([, ms]) => span / ms <= MAX_BARS) || LADDER[LADDER.length - 1];
}

async function span(state, signal) {
  const since = parseInstant(state.since);
  const until = parseInstant(state.until);
  if (!Number.isNaN(since) && !Number.isNaN(until)) {
    return until - since;
  }
  const edge = async (sort) => {
    const body = await getJson(apiUrl('/v1/search', [...searchParams({ ...state, sort }), ['limit', '1']]), { signal });
    const first = body && Array.isArray(body.results) ? body.results[0] : null;
    // An erased event may have lost its timestamp: it is placed in time by its recorded_at.
    return first ? parseInstant(first.timestamp ?? first.recorded_at) : NaN;
  };
  const [oldest, newest] = await Promise.all([edge('timestamp'), edge('-timestamp')]);
  return Number.isNaN(oldest) || Number.isNaN(newest) ? NaN : newest - oldest;
}

/** Fetches and draws the histogram of state into container. */
export async function renderHistogram(app, container, state, signal) {
  replace(container);
  let body;
  let bucket;
  try {
    const millis = await span(state, signal);
    if (Number.isNaN(millis)) {
      return; // no matches: nothing to draw
    }
    bucket = bucketFor(millis);
    body = await getJson(apiUrl('/v1/search', [...searchParams(state), ['limit', '1'], ['histogram', bucket[0]]]),
      { signal });
  } catch (e) {
    app.fail(e, container, 'The time histogram is not available');
    return;
  }
  const buckets = (Array.isArray(body.histogram) ? body.histogram : [])
    .map(({ start, count }) => ({ start: parseInstant(start), count: Number(count) || 0 }))
    .filter((b) => !Number.isNaN(b.start));
  if (!buckets.length) {
    return;
  }
  const [name, width] = bucket;
  const highest = Math.max(1, ...buckets.map((b) => b.count));
  const bars = buckets.map((b) => {
    const bar = el('button', {
      type: 'button',
      class: b.count ? 'bar' : 'bar empty',
      title: `${formatMillis(b.start)}: ${b.count} event${b.count === 1 ? '' : 's'}`,
      'aria-label': `${formatMillis(b.start)}: ${b.count} events; narrow to this ${name} bucket`,
      dataset: { start: isoUtc(b.start), count: String(b.count) },
      onclick: () => app.navigate({ since: isoUtc(b.start), until: isoUtc(b.start + width) }),
    });
    // A CSSOM property, not a style attribute: the page's CSP allows no inline style markup.
    bar.style.setProperty('--h', `${Math.max(b.count ? 3 : 0, Math.round((100 * b.count) / highest))}%`);
    return bar;
  });
  replace(container,
    el('div', { class: 'bars', role: 'group', 'aria-label': `matches per ${name}` }, bars),
    el('div', { class: 'axis' },
      el('span', {}, formatMillis(buckets[0].start)),
      el('span', { class: 'muted' }, `${name} per bar, highest ${highest}`),
      el('span', {}, formatMillis(buckets[buckets.length - 1].start + width))));
}
