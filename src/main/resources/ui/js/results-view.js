// One result row of the search view: time, agent, chain position, action and status, then the
// server's highlight fragments (or, without highlights, the action name or error as text).

import { el, highlightFragment } from './dom.js';
import { formatTime } from './time.js';

const MAX_FRAGMENTS = 4;

function text(value) {
  return value === undefined || value === null ? '' : String(value);
}

function highlights(event) {
  const hl = event.highlights && typeof event.highlights === 'object' ? event.highlights : {};
  const lines = [];
  for (const [field, fragments] of Object.entries(hl)) {
    for (const fragment of Array.isArray(fragments) ? fragments : []) {
      if (lines.length < MAX_FRAGMENTS) {
        lines.push(el('div', { class: 'fragment' }, el('span', { class: 'field' }, field), ' ', highlightFragment(fragment)));
      }
    }
  }
  if (!lines.length) {
    const plain = text(event.error_message) || text(event.action_name);
    if (plain) {
      lines.push(el('div', { class: 'fragment plain' }, plain.slice(0, 300)));
    }
  }
  return lines;
}

/**
 * The time cell: the event's timestamp, or, when an erasure removed it, its recorded_at (the time
 * the service stored it, by which such an event sorts and filters), marked as such.
 */
function timeCell(event) {
  if (event.timestamp === undefined && event.recorded_at !== undefined) {
    return el('span', { class: 'time recorded', title: `timestamp erased; recorded at ${text(event.recorded_at)}` },
      formatTime(event.recorded_at), el('span', { class: 'recorded-mark' }, ' recorded'));
  }
  return el('span', { class: 'time', title: text(event.timestamp) }, formatTime(event.timestamp));
}

/** A result list item; href is the address that opens the event, onOpen runs instead of following it. */
export function resultItem(event, { href, selected, live, onOpen }) {
  const status = text(event.action_status);
  const link = el('a', {
    class: 'result-link', href,
    onclick: (e) => {
      if (!e.ctrlKey && !e.metaKey && !e.shiftKey && e.button === 0) {
        e.preventDefault();
        onOpen();
      }
    },
  },
  timeCell(event),
  el('span', { class: 'agent' }, text(event.agent_id)),
  el('span', { class: 'seq' }, `#${text(event.sequence)}`),
  el('span', { class: 'type' }, text(event.action_type)),
  el('span', { class: 'name' }, text(event.action_name)),
  status ? el('span', { class: `status status-${/^[a-z_]+$/.test(status) ? status : 'other'}` }, status) : null,
  event.erased ? el('span', { class: 'erased-badge', title: 'content erased; hash as committed' }, 'erased') : null,
  live ? el('span', { class: 'live-badge' }, 'live') : null);
  return el('li', {
    class: `result${selected ? ' open' : ''}${live ? ' live' : ''}`,
    dataset: { id: text(event.id) },
  }, link, highlights(event));
}
