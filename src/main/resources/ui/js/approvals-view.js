// The approvals view (src/site/console.md#approvals): the decisions that wait for a person, each with
// the proposed call, the rule and its reason, and the agent's recent events; approve and deny buttons
// with a comment. Listing needs a key with role approve (GET /v1/approvals), so the buttons only ever
// show to such a key; any other key sees one sentence saying so.

import { apiUrl, getJson, postJson } from './api.js';
import { el, notice, replace } from './dom.js';
import { jsonTree } from './json-view.js';
import { formatTime } from './time.js';
import { emptyState, toSearch } from './url-state.js';

const $ = (id) => document.getElementById(id);
const RECENT = 8;

/** The pending items of a GET /v1/approvals answer: an array, or an object holding one. */
export function pendingItems(body) {
  const list = Array.isArray(body) ? body
    : (body && typeof body === 'object' && (Array.isArray(body.approvals) ? body.approvals
      : Array.isArray(body.pending) ? body.pending : Array.isArray(body.decisions) ? body.decisions
        : Array.isArray(body.items) ? body.items : []));
  return list.filter((item) => item && typeof item === 'object' && typeof (item.decision_id ?? item.id) === 'string');
}

export function createApprovalsView(app) {
  async function render(state, signal) {
    const list = $('approvals-list');
    const status = $('approvals-status');
    replace(status, 'Loading the decisions that wait for a person…');
    replace(list);
    let body;
    try {
      body = await getJson(apiUrl('/v1/approvals', { state: 'pending' }), { signal });
    } catch (e) {
      if (e.name === 'AbortError') {
        return;
      }
      replace(status);
      if (e.status === 403) {
        replace(status, el('span', { class: 'muted', id: 'approvals-no-role' },
          'This API key cannot see or answer approvals: that needs a key with the approve role.'));
        return;
      }
      app.fail(e, status, 'The approvals cannot be listed');
      return;
    }
    const items = pendingItems(body);
    replace(status, items.length ? `${items.length} decision${items.length === 1 ? '' : 's'} waiting for a person`
      : 'Nothing waits for a person.');
    status.dataset.count = String(items.length);
    for (const item of items) {
      const card = el('li', { class: 'approval', dataset: { decision: String(item.decision_id ?? item.id) } },
        el('p', { class: 'muted' }, 'Loading the proposed call…'));
      list.append(card);
      fill(card, item, state, signal);
    }
  }

  async function fill(card, item, state, signal) {
    const id = String(item.decision_id ?? item.id);
    let decision = null;
    try {
      decision = await getJson(`/v1/events/${encodeURIComponent(id)}`, { signal });
    } catch (e) {
      if (e.name === 'AbortError') {
        return;
      }
      // the list item alone is shown: the decision event may not be readable with this key
    }
    const out = decision && typeof decision.action_output === 'object' && decision.action_output ? decision.action_output : {};
    const pick = (name) => item[name] ?? (decision ? decision[name] : undefined);
    const agent = String(pick('agent_id') ?? '');
    const rule = item.rule ?? out.rule;
    const reason = item.reason ?? out.reason;
    const expires = item.expires_at ?? out.expires_at;
    const input = pick('action_input');
    const recent = el('section', { class: 'recent' }, el('h4', {}, 'Recent events of the agent'),
      el('p', { class: 'muted' }, 'Loading…'));
    const comment = el('input', { class: 'comment', 'aria-label': 'comment', placeholder: 'comment (kept in the trail)' });
    const result = el('p', { class: 'approval-result', 'aria-live': 'polite' });
    const approve = el('button', { type: 'button', class: 'approve', onclick: () => answer(true) }, 'Approve');
    const deny = el('button', { type: 'button', class: 'deny', onclick: () => answer(false) }, 'Deny');

    async function answer(approved) {
      approve.disabled = true;
      deny.disabled = true;
      replace(result, approved ? 'approving…' : 'denying…');
      try {
        const r = await postJson(`/v1/approvals/${encodeURIComponent(id)}`, { approve: approved, comment: comment.value });
        const by = r && typeof r === 'object' ? (r.approver ?? r.action_output?.approver ?? r.event?.approver) : null;
        result.className = `approval-result ${approved ? 'ok' : 'failed'}`;
        result.dataset.answered = approved ? 'approved' : 'denied';
        replace(result, `${approved ? '✓ approved' : '✗ denied'}${by ? ` by ${String(by)}` : ''}`);
        card.classList.add('answered');
        comment.disabled = true;
        notice(`Decision ${id} ${approved ? 'approved' : 'denied'}`);
      } catch (e) {
        result.className = 'approval-result failed';
        replace(result);
        app.fail(e, result, 'The answer was not recorded');
        if (e.status !== 409) {
          approve.disabled = false;
          deny.disabled = false;
        }
      }
    }

    replace(card,
      el('h3', {}, el('span', { class: 'tool' }, String(pick('action_name') ?? '(no action name)')),
        el('span', { class: 'muted' }, ` · ${agent}`)),
      el('dl', { class: 'facts' },
        fact('decision', el('a', { href: eventLink(id), onclick: (e) => open(e, id) }, id)),
        fact('rule', rule), fact('reason', reason), fact('session', pick('session_id')),
        fact('proposed', formatTime(pick('timestamp'))), fact('expires', formatTime(expires))),
      el('h4', {}, 'Proposed call'),
      input === undefined || input === null ? el('p', { class: 'muted' }, 'no arguments') : jsonTree(input),
      recent,
      el('div', { class: 'approval-actions' }, comment, approve, deny),
      result);
    if (agent) {
      showRecent(recent, agent, id, signal);
    }
  }

  async function showRecent(section, agent, decisionId, signal) {
    let events;
    try {
      events = await getJson(apiUrl('/v1/events', { agent_id: agent, limit: RECENT }), { signal });
    } catch (e) {
      replace(section, el('h4', {}, 'Recent events of the agent'));
      app.fail(e, section, 'The agent\'s events cannot be listed');
      return;
    }
    const rows = (Array.isArray(events) ? events : []).filter((e) => e && typeof e === 'object').map((e) =>
      el('li', { class: e.id === decisionId ? 'this' : null },
        el('a', { href: eventLink(String(e.id)), onclick: (ev) => open(ev, String(e.id)) },
          `#${String(e.sequence)} ${String(e.action_type ?? '')} ${String(e.action_name ?? '')}`),
        el('span', { class: 'muted' }, ` ${formatTime(e.timestamp)}`),
        e.action_status ? el('span', { class: `status status-${String(e.action_status)}` }, String(e.action_status)) : null));
    replace(section, el('h4', {}, 'Recent events of the agent'),
      rows.length ? el('ol', { class: 'recent-events' }, rows) : el('p', { class: 'muted' }, 'none'));
  }

  function eventLink(id) {
    return toSearch({ ...emptyState(), event: id });
  }

  function open(e, id) {
    e.preventDefault();
    app.navigate({ ...emptyState(), event: id });
  }

  function fact(name, value) {
    if (value === undefined || value === null || value === '') {
      return null;
    }
    return [el('dt', {}, name), el('dd', {}, value instanceof Node ? value : String(value))];
  }

  function hide() {
    replace($('approvals-list'));
  }

  return { render, hide };
}
