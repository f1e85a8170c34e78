// The coverage view (src/site/console.md): for one agent (and optionally one session), what each
// capture path saw (events per path and action type), the gaps the service recorded and whether
// they were filled later, repeated capture numbers, and the LLM calls seen by one path only
// (GET /v1/coverage). Every event id links to its detail.

import { apiUrl, getJson } from './api.js';
import { el, replace } from './dom.js';
import { emptyState, toSearch } from './url-state.js';

const $ = (id) => document.getElementById(id);

export function createCoverageView(app) {
  const form = $('coverage-form');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    app.navigate({ view: 'coverage', agent_id: $('coverage-agent').value.trim(), session_id: $('coverage-session').value.trim() });
  });

  async function render(state, signal) {
    $('coverage-agent').value = state.agent_id;
    $('coverage-session').value = state.session_id;
    const out = $('coverage-body');
    replace($('coverage-error'));
    if (!state.agent_id) {
      replace(out, el('p', { class: 'muted' }, 'Name an agent to see what its capture paths recorded.'));
      return;
    }
    replace(out, el('p', { class: 'muted' }, 'Loading coverage…'));
    let coverage;
    try {
      const params = { agent_id: state.agent_id };
      if (state.session_id) {
        params.session_id = state.session_id;
      }
      coverage = await getJson(apiUrl('/v1/coverage', params), { signal });
    } catch (e) {
      replace(out);
      app.fail(e, $('coverage-error'), 'The coverage cannot be read');
      return;
    }
    const sessions = Array.isArray(coverage.sessions) ? coverage.sessions : [];
    replace(out, sessions.length ? sessions.map(session) : el('p', { class: 'muted' }, 'No events in this window.'));
  }

  function eventLink(id) {
    const text = String(id);
    return el('a', { class: 'hash', href: toSearch({ ...emptyState(), event: text }), onclick: (e) => {
      e.preventDefault();
      app.navigate({ ...emptyState(), event: text });
    } }, text);
  }

  function session(s) {
    const paths = s.paths && typeof s.paths === 'object' ? s.paths : {};
    const gaps = Array.isArray(s.gaps) ? s.gaps : [];
    const dups = Array.isArray(s.duplicates) ? s.duplicates : [];
    const one = Array.isArray(s.one_path_only) ? s.one_path_only : [];
    const pathRows = [];
    for (const [path, types] of Object.entries(paths)) {
      const counts = types && typeof types === 'object' ? types : {};
      const total = Object.values(counts).reduce((a, n) => a + Number(n || 0), 0);
      pathRows.push(el('tr', { dataset: { path } }, el('td', {}, path), el('td', { class: 'num' }, String(total)),
        el('td', {}, Object.entries(counts).map(([t, n]) => `${t} ${n}`).join(', '))));
    }
    const sid = s.session_id === null || s.session_id === undefined ? null : String(s.session_id);
    return el('section', { class: 'coverage-session', dataset: { session: sid ?? '' } },
      el('h3', {}, sid === null ? 'Events without a session' : `Session ${sid}`),
      el('table', { class: 'table coverage-paths' },
        el('thead', {}, el('tr', {}, el('th', {}, 'capture path'), el('th', {}, 'events'), el('th', {}, 'per action type'))),
        el('tbody', {}, pathRows)),
      el('h4', {}, gaps.length ? `Gaps (${gaps.length})` : 'Gaps: none recorded'),
      gaps.length ? el('table', { class: 'table coverage-gaps' },
        el('thead', {}, el('tr', {}, el('th', {}, 'capture id'), el('th', {}, 'missing'), el('th', {}, 'state'), el('th', {}, 'GAP event'))),
        el('tbody', {}, gaps.map((g) => el('tr', { class: `gap ${g.state === 'filled' ? 'filled' : 'open'}` },
          el('td', {}, String(g.capture_id)), el('td', {}, `${g.from}–${g.to}`),
          el('td', { class: g.state === 'filled' ? 'ok' : 'failed' }, g.state === 'filled' ? 'filled later' : 'open'),
          el('td', {}, eventLink(g.gap_event_id)))))) : null,
      dups.length ? el('h4', {}, `Repeated capture numbers (${dups.length})`) : null,
      dups.length ? el('ul', { class: 'coverage-duplicates' }, dups.map((d) => el('li', {},
        `${d.capture_id} #${d.capture_seq}: `, (Array.isArray(d.event_ids) ? d.event_ids : []).map((id) => [eventLink(id), ' '])))) : null,
      el('h4', {}, one.length ? `Seen by one path only (${one.length})` : 'Cross-check: nothing seen by one path only'),
      one.length ? el('ul', { class: 'coverage-one-path' }, one.map((o) => el('li', {}, `${o.path}: `, eventLink(o.event_id)))) : null);
  }

  return { render };
}
