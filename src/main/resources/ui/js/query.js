// What the console asks the API for, built from the view state. The status and source filters
// have no request parameter (CONTRACT 4.2 filters are agent_id, action_type, since, until and
// label.{key}), so they become keyword clauses of the query; an empty query matches everything.

const MATCH_ALL = '*:*';

/** A keyword value as a Lucene classic-syntax phrase: quoted, with \ and " escaped. */
export function phrase(value) {
  return `"${String(value).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The q sent to the server: the typed query, AND-ed with the status and source clauses. The typed
 * query is wrapped in parentheses only when clauses are added, so that the server's error
 * positions match what the user typed in the usual case.
 */
export function effectiveQuery(state) {
  const typed = state.q.trim();
  const clauses = [];
  if (state.action_status) {
    clauses.push(`action_status:${phrase(state.action_status)}`);
  }
  if (state.source) {
    clauses.push(`source:${phrase(state.source)}`);
  }
  if (!clauses.length) {
    return typed || MATCH_ALL;
  }
  return (typed ? [`(${typed})`, ...clauses] : clauses).join(' AND ');
}

/** True when the query matches everything (the live stream then takes no q at all). */
export function matchesAll(query) {
  return query === MATCH_ALL;
}

/** The request parameters shared by search, facets, histogram and download, as [name, value] pairs. */
export function filterParams(state) {
  const params = [];
  for (const name of ['agent_id', 'action_type', 'since', 'until']) {
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

/** Parameters of GET /v1/stream for a state: the stream takes no since/until and no sort (CONTRACT 11). */
export function streamParams(state) {
  const query = effectiveQuery(state);
  const params = matchesAll(query) ? [] : [['q', query]];
  for (const name of ['agent_id', 'action_type']) {
    if (state[name]) {
      params.push([name, state[name]]);
    }
  }
  for (const [key, value] of state.labels) {
    params.push([`label.${key}`, value]);
  }
  return params;
}
