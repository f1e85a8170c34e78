// Facets of the current search (src/site/console.md: exact counts over all matches, top 20 values per
// field, from GET /v1/search?facets=...). Clicking a value narrows the search to it.

import { apiUrl, getJson } from './api.js';
import { el, replace } from './dom.js';
import { searchParams } from './query.js';

const FIXED_FIELDS = ['agent_id', 'action_type', 'action_status', 'source'];
const MAX_LABEL_FIELDS = 5;
const TITLES = { agent_id: 'Agent', action_type: 'Action type', action_status: 'Status', source: 'Source' };

/**
 * The facet fields to ask for: the fixed ones, plus the label keys seen on the current page of
 * results (the API needs a label's key named; a page shows which keys the matches use).
 */
export function facetFields(results) {
  const keys = new Set();
  for (const event of results) {
    if (event && event.labels && typeof event.labels === 'object') {
      Object.keys(event.labels).forEach((k) => keys.add(k));
    }
  }
  return [...FIXED_FIELDS, ...[...keys].sort().slice(0, MAX_LABEL_FIELDS).map((k) => `label.${k}`)];
}

/** The state change that narrows the search to one facet value. */
export function narrowing(state, field, value) {
  if (field.startsWith('label.')) {
    const key = field.slice('label.'.length);
    return { labels: [...state.labels.filter(([k]) => k !== key), [key, value]] };
  }
  return { [field]: value };
}

function isActive(state, field, value) {
  if (field.startsWith('label.')) {
    const key = field.slice('label.'.length);
    return state.labels.some(([k, v]) => k === key && v === value);
  }
  return state[field] === value;
}

/** Fetches and shows the facets for state into container; app.navigate narrows on click. */
export async function renderFacets(app, container, state, results, signal) {
  replace(container, el('p', { class: 'muted' }, 'Counting…'));
  const fields = facetFields(results);
  let body;
  try {
    body = await getJson(apiUrl('/v1/search', [...searchParams(state), ['limit', '1'],
      ['facets', fields.join(',')]]), { signal });
  } catch (e) {
    replace(container);
    app.fail(e, container, 'Facets are not available');
    return;
  }
  const facets = body && typeof body.facets === 'object' && body.facets ? body.facets : {};
  const sections = [];
  for (const field of fields) {
    const values = Array.isArray(facets[field]) ? facets[field] : [];
    if (!values.length) {
      continue;
    }
    const title = TITLES[field] || `Label ${field.slice('label.'.length)}`;
    sections.push(el('section', { class: 'facet', dataset: { field } },
      el('h3', {}, title),
      el('ul', {}, values.map(({ value, count }) => el('li', {},
        el('button', {
          type: 'button',
          class: isActive(state, field, String(value)) ? 'facet-value active' : 'facet-value',
          dataset: { field, value: String(value) },
          onclick: () => app.navigate(narrowing(state, field, String(value))),
        }, el('span', { class: 'facet-label' }, String(value)), el('span', { class: 'facet-count' }, String(count))))))));
  }
  replace(container, sections.length ? sections : el('p', { class: 'muted' }, 'No facet values.'));
}
