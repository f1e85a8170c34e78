// Run by ConsoleIT through executeAsyncScript on a console page: checks the small modules'
// contracts and calls back with the list of failures (empty when all hold).
const done = arguments[arguments.length - 1];
Promise.all(['url-state', 'query', 'tail', 'dom', 'time', 'histogram-view', 'canonical-json']
  .map((m) => import(`/ui/js/${m}.js`))).then(([u, q, t, d, time, h, jcs]) => {
  const failures = [];
  const eq = (name, actual, expected) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      failures.push(`${name}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
  };

  // url-state: round trip, defaults, bad addresses, paging rule
  const state = { ...u.emptyState(), q: 'a&b=c "d" ü', agent_id: 'x y', action_status: 'error',
    labels: [['env', 'p&r=o'], ['team', 'ü']], sort: '-timestamp', page: 3, event: 'id-1' };
  eq('state round trip', u.readState(u.toSearch(state)), state);
  eq('empty state', u.toSearch(u.emptyState()), './');
  const bad = u.readState('?view=evil&sort=up&page=-3&label.=x');
  eq('bad address', [bad.view, bad.sort, bad.page, bad.labels], ['search', 'relevance', 1, []]);
  eq('narrowing resets the page', u.withChanges(state, { agent_id: 'z' }).page, 1);
  eq('opening keeps the page', u.withChanges(state, { event: 'y' }).page, 3);

  // query: what is asked of the API
  eq('match all', q.effectiveQuery(u.emptyState()), '*:*');
  eq('typed only', q.effectiveQuery({ ...u.emptyState(), q: ' a OR b ' }), 'a OR b');
  eq('filters are parameters, the query is as typed',
    q.searchParams({ ...u.emptyState(), q: 'a OR b', action_status: 'x', source: 's', since: '2026-01-01',
      labels: [['env', 'prod']], sort: 'timestamp' }),
    [['q', 'a OR b'], ['action_status', 'x'], ['source', 's'], ['since', '2026-01-01'], ['label.env', 'prod'],
      ['sort', 'timestamp']]);
  eq('stream takes no match-all and no time', q.streamParams({ ...u.emptyState(), since: '2026-01-01', agent_id: 'a',
    action_status: 'error' }), [['agent_id', 'a'], ['action_status', 'error']]);

  // tail: SSE parsing across chunks, CRLF, comments, multi-line data
  const [events, rest] = t.parseSse('id: 1\r\nevent: event\r\ndata: {"a":1}\r\n\r\n: keep-alive\n\n'
    + 'event: overflow\ndata: {"resume_from":\ndata: 7}\n\nid: 2\nda');
  eq('sse events', events, [{ id: '1', type: 'event', data: '{"a":1}' },
    { id: null, type: 'overflow', data: '{"resume_from":\n7}' }]);
  eq('sse rest', rest, 'id: 2\nda');

  // dom: highlight fragments are read, never parsed as HTML
  const box = document.createElement('div');
  box.append(d.highlightFragment('<em>a</em> &lt;img src=x onerror=1&gt; &amp;lt; <b>x</b> &#39;&quot;<em>b</em>'));
  eq('fragment text', box.textContent, 'a <img src=x onerror=1> &lt; <b>x</b> \'"b');
  eq('fragment elements', [...box.querySelectorAll('*')].map((e) => e.tagName), ['EM', 'EM']);

  // time
  eq('naive time is UTC', time.parseInstant('2026-03-01T10:00:00'), Date.UTC(2026, 2, 1, 10));
  eq('micros cut', time.parseInstant('2026-03-01T10:00:00.123456Z'), Date.UTC(2026, 2, 1, 10, 0, 0, 123));
  eq('offset', time.parseInstant('2026-03-01T12:00:00+02:00'), Date.UTC(2026, 2, 1, 10));
  eq('date', time.parseInstant('2026-03-01'), Date.UTC(2026, 2, 1));
  eq('not a time', Number.isNaN(time.parseInstant('soon')) && Number.isNaN(time.parseInstant(42)), true);

  // histogram buckets
  eq('buckets', [1, 59000, 3600000, 86400000 * 10, 86400000 * 10000].map((ms) => h.bucketFor(ms)[0]),
    ['PT1S', 'PT1S', 'PT1M', 'PT6H', 'P365D']);

  // RFC 8785 edge cases
  eq('jcs numbers', jcs.canonicalize([-0, 1e21, 1e-7, 0.1, 100, 4.5, 2 ** 53]),
    '[0,1e+21,1e-7,0.1,100,4.5,9007199254740992]');
  eq('jcs key order by UTF-16 code units', jcs.canonicalize({ '\ue000': 1, '\ud83d\ude00': 2, a: 3, B: [null, true, {}] }),
    '{"B":[null,true,{}],"a":3,"\ud83d\ude00":2,"\ue000":1}');
  eq('jcs strings', jcs.canonicalize('\u0001\b\u2028</script>é'), '"\\u0001\\b\u2028</script>é"');
  let threw = false;
  try {
    jcs.canonicalize(NaN);
  } catch (e) {
    threw = e instanceof TypeError;
  }
  eq('jcs refuses NaN', threw, true);
  done(failures);
}).catch((e) => done([String((e && e.stack) || e)]));
