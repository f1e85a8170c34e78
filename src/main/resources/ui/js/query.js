// What the console asks the API for, built from the view state. Every filter is a request
// parameter (agent_id, action_type, action_status, source, since, until, label.{key}); the typed
// query goes to q unchanged, so the server's error positions are positions in what the user typed.
// An empty query matches everything.

const MATCH_ALL = '*:*';
const FILTER_PARAMS = ['agent_id', 'action_type', 'action_status', 'source', 'since', 'until'];
/** The stream filters as GET /v1/stream takes them (no time range: it starts now). */
const STREAM_PARAMS = ['agent_id', 'action_type', 'action_status', 'source'];

/** The q sent to the server: the typed query, or match-all when nothing was typed. */
export function effectiveQuery(state) {
  return state.q.trim() || MATCH_ALL;
}

/** True when the query matches everything (the live stream then takes no q at all). */
export function matchesAll(query) {
  return query === MATCH_ALL;
}

/** The request parameters shared by search, facets, histogram and download, as [name, value] pairs. */
export function filterParams(state) {
  const params = [];
  for (const name of FILTER_PARAMS) {
    if (state[name]) {
      params.push([name, state[name]]);
    }
  }
  for (const [key, value] of state.labels) {
    params.push([`label.${key}`, value]);
  }
  return params;
}

/** Parameters of GET /v1/search for a state (without paging). */
export function searchParams(state) {
  const params = [['q', effectiveQuery(state)], ...filterParams(state)];
  if (state.sort !== 'relevance') {
    params.push(['sort', state.sort]);
  }
  return params;
}

/** Parameters of GET /v1/stream for a state: the stream takes no since/until and no sort (src/site/live-stream.md). */
export function streamParams(state) {
  const query = effectiveQuery(state);
  const params = matchesAll(query) ? [] : [['q', query]];
  for (const name of STREAM_PARAMS) {
    if (state[name]) {
      params.push([name, state[name]]);
    }
  }
  for (const [key, value] of state.labels) {
    params.push([`label.${key}`, value]);
  }
  return params;
}
