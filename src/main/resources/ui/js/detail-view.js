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
    const gate = gateSection(event);
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
      gate,
      neighbours,
      el('section', {}, el('h3', {}, 'Stored event'), jsonTree(event)));
    await Promise.all([verify(event, verification, signal), renderNeighbours(state, event, neighbours, signal),
      gate ? renderGate(state, event, gate, signal) : null]);
  }

  // Gates (src/site/console.md#approvals): a DECISION links to its APPROVAL and to the TOOL_CALL bound
  // to it, when they are among the agent's latest 1000 of each type; an APPROVAL, a bound TOOL_CALL
  // and a GATE_VIOLATION link back to their decision.
  function gateSection(event) {
    const type = event.action_type;
    if (type === 'DECISION' || type === 'APPROVAL' || type === 'GATE_VIOLATION'
      || (typeof event.decision_id === 'string' && event.decision_id)) {
      return el('section', { id: 'gate' }, el('h3', {}, 'Gate'), el('p', { class: 'muted' }, 'Looking for the related events…'));
    }
    return null;
  }

  async function renderGate(state, event, section, signal) {
    const out = event.action_output && typeof event.action_output === 'object' ? event.action_output : {};
    const link = (id, label) => el('a', { class: 'gate-link', href: toSearch(withChanges(state, { event: String(id) })),
      onclick: (ev) => { ev.preventDefault(); app.navigate({ event: String(id) }); } }, label);
    const items = [];
    if (event.action_type === 'DECISION') {
      items.push(el('li', {}, `decision: ${String(out.decision ?? '?')}`,
        out.rule ? ` · rule ${String(out.rule)}` : '', out.reason ? ` · ${String(out.reason)}` : '',
        out.expires_at ? ` · expires ${formatTime(out.expires_at)}` : ''));
      let approvals = [];
      let calls = [];
      let violations = [];
      try {
        const latest = (actionType) => getJson(apiUrl('/v1/events', { agent_id: event.agent_id, action_type: actionType,
          limit: 1000 }), { signal });
        const [a, c, v] = await Promise.all([latest('APPROVAL'), latest('TOOL_CALL'), latest('GATE_VIOLATION')]);
        const about = (e) => e && typeof e === 'object' && e.action_output && e.action_output.decision_id === event.id;
        approvals = (Array.isArray(a) ? a : []).filter(about);
        calls = (Array.isArray(c) ? c : []).filter((e) => e && e.decision_id === event.id);
        violations = (Array.isArray(v) ? v : []).filter(about);
      } catch (e) {
        replace(section, el('h3', {}, 'Gate'), el('ul', { class: 'gate-links' }, items));
        app.fail(e, section, 'The related events cannot be shown');
        return;
      }
      for (const a of approvals) {
        const o = a.action_output;
        items.push(el('li', { class: 'approval-link' }, link(a.id, `${o.approved ? 'approved' : 'denied'} by ${String(o.approver ?? '?')}`),
          o.comment ? ` · “${String(o.comment)}”` : '', ` · ${formatTime(a.timestamp)}`));
      }
      if (!approvals.length && out.decision === 'ask') {
        items.push(el('li', { class: 'muted' }, 'no answer from a person found'));
      }
      for (const c of calls) {
        items.push(el('li', { class: 'call-link' }, link(c.id, `bound call: #${String(c.sequence)} ${String(c.action_name ?? '')}`)));
      }
      if (!calls.length) {
        items.push(el('li', { class: 'muted' }, 'no call bound to this decision found'));
      }
      for (const v of violations) {
        items.push(el('li', { class: 'failed' }, link(v.id, `GATE_VIOLATION: ${String(v.action_output.check ?? '')}`)));
      }
    } else if (event.action_type === 'APPROVAL') {
      items.push(el('li', {}, `${out.approved ? 'approved' : 'denied'} by ${String(out.approver ?? '?')}`,
        out.comment ? ` · “${String(out.comment)}”` : '', out.valid_until ? ` · valid until ${formatTime(out.valid_until)}` : ''));
      if (typeof out.decision_id === 'string') {
        items.push(el('li', { class: 'decision-link' }, link(out.decision_id, 'the decision')));
      }
    } else if (event.action_type === 'GATE_VIOLATION') {
      items.push(el('li', { class: 'failed' }, `check failed: ${String(out.check ?? '?')}`));
      if (typeof out.event_id === 'string') {
        items.push(el('li', {}, link(out.event_id, 'the call')));
      }
      if (typeof out.decision_id === 'string') {
        items.push(el('li', { class: 'decision-link' }, link(out.decision_id, 'the decision it named')));
      }
    } else {
      items.push(el('li', { class: 'decision-link' }, link(event.decision_id, 'the decision this call is bound to')));
    }
    replace(section, el('h3', {}, 'Gate'), el('ul', { class: 'gate-links' }, items));
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
