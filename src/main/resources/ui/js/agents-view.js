// The agents view: every agent with event count, last activity and chain status; per agent a
// button that runs GET /v1/verify and shows its answer, and one that downloads the evidence
// package (GET /v1/export, fetched with the key header and saved as a file).

import { apiUrl, get, getJson } from './api.js';
import { el, notice, replace, safeFileName, saveBlob } from './dom.js';
import { formatTime } from './time.js';
import { emptyState, toSearch } from './url-state.js';

const $ = (id) => document.getElementById(id);

export function createAgentsView(app) {
  async function render(state, signal) {
    const body = $('agents-body');
    replace(body, el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'Loading agents…')));
    let agents;
    try {
      agents = await getJson('/v1/agents', { signal });
    } catch (e) {
      replace(body);
      app.fail(e, $('agents-error'), 'The agents cannot be listed');
      return;
    }
    replace($('agents-error'));
    const rows = (Array.isArray(agents) ? agents : []).filter((a) => a && typeof a === 'object').map(row);
    replace(body, rows.length ? rows : el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'No agents yet.')));
  }

  function row(agent) {
    const id = String(agent.agent_id);
    const result = el('td', { class: 'verify-result' });
    const searchLink = toSearch({ ...emptyState(), agent_id: id });
    return el('tr', { dataset: { agent: id } },
      el('td', {}, el('a', { href: searchLink, onclick: (e) => {
        e.preventDefault();
        app.navigate({ ...emptyState(), agent_id: id });
      } }, id)),
      el('td', { class: 'num' }, String(agent.event_count ?? '')),
      el('td', { title: String(agent.last_activity ?? '') }, formatTime(agent.last_activity)),
      el('td', { class: agent.chain_valid === false ? 'chain broken' : 'chain valid' },
        agent.chain_valid === false ? 'BROKEN' : 'valid',
        agent.verified_at ? el('span', { class: 'muted' }, ` (checked ${formatTime(agent.verified_at)})`) : null),
      el('td', { class: 'actions' },
        el('button', { type: 'button', class: 'verify', onclick: () => verify(id, result) }, 'Verify'),
        el('button', { type: 'button', class: 'export', onclick: () => exportPackage(id, result) }, 'Export'),
        el('a', { class: 'coverage', href: toSearch({ ...emptyState(), view: 'coverage', agent_id: id }), onclick: (e) => {
          e.preventDefault();
          app.navigate({ ...emptyState(), view: 'coverage', agent_id: id });
        } }, 'Coverage')),
      result);
  }

  async function verify(agentId, cell) {
    replace(cell, 'verifying…');
    try {
      const r = await getJson(apiUrl('/v1/verify', { agent_id: agentId }));
      cell.className = `verify-result ${r.valid ? 'ok' : 'failed'}`;
      replace(cell, r.valid
        ? `✓ valid: ${r.events_verified} events verified, head sequence ${r.head_sequence}`
        : `✗ invalid: ${String(r.error)} (${r.events_verified} events verified before it)`);
    } catch (e) {
      cell.className = 'verify-result failed';
      app.fail(e, cell, 'Verification could not run');
    }
  }

  async function exportPackage(agentId, cell) {
    replace(cell, 'exporting…');
    try {
      const response = await get(apiUrl('/v1/export', { agent_id: agentId }));
      const blob = await response.blob();
      const name = `evidence-${safeFileName(agentId)}.json`;
      saveBlob(blob, name);
      cell.className = 'verify-result ok';
      replace(cell, `downloaded ${name} (${blob.size} bytes)`);
      notice(`Downloaded ${name}`);
    } catch (e) {
      cell.className = 'verify-result failed';
      app.fail(e, cell, 'The export failed');
    }
  }

  return { render };
}
