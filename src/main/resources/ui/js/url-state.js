// The view lives in the address (src/site/console.md): query, filters, order, page, the selected event and
// the page shown. Reloading or sharing the link shows the same view. readState never throws:
// whatever the address holds becomes a valid state (unknown values fall back to defaults) and
// what the server must judge (the query, dates, label keys) is passed on for it to judge.

export const PAGE_SIZE = 25;
export const VIEWS = ['search', 'agents', 'coverage', 'approvals', 'timestamps'];
export const SORTS = ['relevance', '-timestamp', 'timestamp'];

/** Filters that are request parameters or query clauses, in the order they appear in the URL. */
export const FILTERS = ['agent_id', 'action_type', 'action_status', 'source', 'since', 'until'];

export function emptyState() {
  return {
    view: 'search', q: '', agent_id: '', action_type: '', action_status: '', source: '', since: '',
    until: '', labels: [], sort: 'relevance', page: 1, event: '', session_id: '',
  };
}

/** The state an address holds (location.search form). */
export function readState(search) {
  const params = new URLSearchParams(search);
  const state = emptyState();
  const view = params.get('view');
  state.view = VIEWS.includes(view) ? view : 'search';
  state.q = params.get('q') || '';
  for (const name of FILTERS) {
    state[name] = params.get(name) || '';
  }
  const sort = params.get('sort');
  state.sort = SORTS.includes(sort) ? sort : 'relevance';
  const page = Number(params.get('page'));
  state.page = Number.isSafeInteger(page) && page >= 1 ? page : 1;
  state.event = params.get('event') || '';
  state.session_id = params.get('session_id') || '';
  for (const [name, value] of params) {
    if (name.startsWith('label.') && name.length > 'label.'.length) {
      state.labels.push([name.slice('label.'.length), value]);
    }
  }
  return state;
}

/** The address (?query string) of a state; defaults are left out so links stay short. */
export function toSearch(state) {
  const params = new URLSearchParams();
  if (state.view !== 'search') {
    params.set('view', state.view);
  }
  if (state.q) {
    params.set('q', state.q);
  }
  for (const name of FILTERS) {
    if (state[name]) {
      params.set(name, state[name]);
    }
  }
  for (const [key, value] of state.labels) {
    params.append(`label.${key}`, value);
  }
  if (state.sort !== 'relevance') {
    params.set('sort', state.sort);
  }
  if (state.page > 1) {
    params.set('page', String(state.page));
  }
  if (state.event) {
    params.set('event', state.event);
  }
  if (state.session_id) {
    params.set('session_id', state.session_id);
  }
  const text = params.toString();
  return text ? `?${text}` : './';
}

/** A copy of state with changes applied; a change of what is searched goes back to page 1. */
export function withChanges(state, changes) {
  const next = { ...state, labels: state.labels.map(([k, v]) => [k, v]), ...changes };
  const narrowing = Object.keys(changes).some((k) => k !== 'page' && k !== 'event' && k !== 'view');
  if (narrowing && !('page' in changes)) {
    next.page = 1;
  }
  return next;
}
