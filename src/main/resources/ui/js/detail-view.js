// The event detail: the stored event as collapsible JSON, its neighbours in the chain, and the
// verification that runs in this browser (verify.js) against the current root.

import { apiUrl, getJson } from './api.js';
import { el, replace } from './dom.js';
import { jsonTree } from './json-view.js';
import { formatTime } from './time.js';
import { toSearch, withChanges } from './url-state.js';
import { chainLinks, verifyEvent } from './verify.js';

const $ = (id) => document.getElementById(id);

export function createDetailView(app) {
  const panel = $('detail');

  function hide() {
    panel.hidden = true;
    replace(panel);
  }

  async function render(state, signal) {
    if (!state.event) {
      hide();
      return;
    }
    panel.hidden = false;
    replace(panel, el('p', { class: 'muted' }, 'Loading the event…'));
    let event;
    try {
      event = await getJson(`/v1/events/${encodeURIComponent(state.event)}`, { signal });
    } catch (e) {
      replace(panel, closeButton(), el('h2', {}, 'Event'));
      app.fail(e, panel, 'The event cannot be shown');
      return;
    }
    if (!event || typeof event !== 'object' || Array.isArray(event)) {
      replace(panel, closeButton(), el('p', { class: 'error' }, 'The server answered something that is not an event.'));
      return;
    }
    const verification = el('section', { id: 'verification', class: 'verification pending' },
      el('h3', {}, 'Verification in this browser'),
      el('p', { id: 'verify-status' }, 'Verifying…'));
    const neighbours = el('section', { id: 'neighbours' }, el('h3', {}, 'Chain neighbours'),
      el('p', { class: 'muted' }, 'Looking for the previous and next events of this agent…'));
    replace(panel,
      closeButton(),
      el('h2', {}, `${String(event.agent_id)} #${String(event.sequence)}`),
      el('dl', { class: 'facts' },
        fact('id', event.id), fact('time', formatTime(event.timestamp), event.timestamp),
        fact('recorded', formatTime(event.recorded_at), event.recorded_at),
        fact('action', [event.action_type, event.action_name].filter((v) => v !== undefined && v !== null).join(' · ')),
        fact('status', event.action_status), fact('log index', event.log_index), fact('hash', event.hash),
        ...(event.erased ? [fact('erased', `content erased; hash as committed (erasure ${String(event.erased.erasure_id)} `
          + `at ${String(event.erased.at)}; fields ${(event.erased.fields || []).join(', ')})`)] : [])),
      verification,
      neighbours,
      el('section', {}, el('h3', {}, 'Stored event'), jsonTree(event)));
    await Promise.all([verify(event, verification, signal), renderNeighbours(state, event, neighbours, signal)]);
  }

  function closeButton() {
    return el('button', { type: 'button', class: 'close', 'aria-label': 'close the event',
      onclick: () => app.navigate({ event: '' }) }, '×');
  }

  function fact(name, value, title) {
    if (value === undefined || value === null || value === '') {
      return null;
    }
    return [el('dt', {}, name), el('dd', { title: title === undefined ? null : String(title) }, String(value))];
  }

  async function verify(event, section, signal) {
    let root;
    let proof;
    try {
      root = await getJson('/v1/merkle/root', { signal });
      proof = await getJson(apiUrl('/v1/merkle/proof', { event_id: String(event.id), tree_size: root.tree_size }),
        { signal });
    } catch (e) {
      if (e.name === 'AbortError') {
        return;
      }
      showVerdict(section, { ok: false, checks: [{ name: 'proof', ok: false,
        detail: `the root or the inclusion proof could not be fetched: ${e.message}` }] });
      return;
    }
    showVerdict(section, await verifyEvent(event, root, proof), Boolean(event.erased));
  }

  function showVerdict(section, result, erased) {
    const firstFailure = result.checks.find((c) => !c.ok);
    section.className = `verification ${result.ok ? 'ok' : 'failed'}`;
    replace(section,
      el('h3', {}, 'Verification in this browser'),
      el('p', { id: 'verify-status', dataset: { ok: String(result.ok) } },
        result.ok ? '✓ verified in this browser' : `✗ verification failed: ${firstFailure.detail}`),
      el('ul', { class: 'checks' }, result.checks.map((c) => el('li', { class: c.ok ? 'ok' : 'failed' },
        `${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`))),
      el('p', { class: 'muted' }, erased
        ? 'Recomputed here: the tree leaf of the hash as committed, and the path of the inclusion proof up to the '
          + 'root the server reports now. The erased content cannot be hashed; GET /v1/verify and verify-export '
          + 'check that an erasure of the trail names this event.'
        : 'Recomputed here: the RFC 8785 form of the event as shown, its SHA-256, the '
          + 'tree leaf, and the path of the inclusion proof up to the root the server reports now.'));
  }

  async function renderNeighbours(state, event, section, signal) {
    const sequence = Number(event.sequence);
    if (!Number.isSafeInteger(sequence) || typeof event.agent_id !== 'string') {
      replace(section, el('h3', {}, 'Chain neighbours'), el('p', { class: 'muted' }, 'This event has no chain position.'));
      return;
    }
    let found = [];
    try {
      const body = await getJson(apiUrl('/v1/search', [['q', `sequence:[${Math.max(1, sequence - 1)} TO ${sequence + 1}]`],
        ['agent_id', event.agent_id], ['limit', '3']]), { signal });
      found = Array.isArray(body.results) ? body.results : [];
    } catch (e) {
      replace(section, el('h3', {}, 'Chain neighbours'));
      app.fail(e, section, 'The neighbours cannot be shown');
      return;
    }
    const previous = found.find((e) => e.sequence === sequence - 1) || null;
    const next = found.find((e) => e.sequence === sequence + 1) || null;
    const link = (e, label) => (e
      ? el('a', { href: toSearch(withChanges(state, { event: String(e.id) })),
        class: `neighbour ${label}`,
        onclick: (ev) => { ev.preventDefault(); app.navigate({ event: String(e.id) }); } },
      `${label === 'previous' ? '← ' : ''}#${e.sequence} ${String(e.action_name ?? e.action_type ?? '')}${label === 'next' ? ' →' : ''}`)
      : el('span', { class: 'muted' }, label === 'previous' ? (sequence === 1 ? 'first event of the chain' : 'previous: not found')
        : 'last event of the chain'));
    replace(section, el('h3', {}, 'Chain neighbours'),
      el('div', { class: 'neighbours' }, link(previous, 'previous'), link(next, 'next')),
      el('ul', { class: 'checks' }, chainLinks(event, previous, next).map((c) => el('li', { class: c.ok ? 'ok' : 'failed' },
        `${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`))));
  }

  return { render, hide };
}
