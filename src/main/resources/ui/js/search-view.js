// The search view: the form and its filters, the result page with exact total and paging,
// facets, histogram, downloads and the live tail. The event detail beside it is detail-view.js.

import { apiUrl, get, getJson } from './api.js';
import { el, notice, replace, saveBlob } from './dom.js';
import { renderFacets } from './facets-view.js';
import { renderHistogram } from './histogram-view.js';
import { searchParams, streamParams } from './query.js';
import { resultItem } from './results-view.js';
import { startTail } from './tail.js';
import { FILTERS, PAGE_SIZE, toSearch, withChanges } from './url-state.js';

const $ = (id) => document.getElementById(id);
const MAX_LIVE_ROWS = 200;

export function createSearchView(app) {
  let results = [];
  let cursor = -1;
  let tail = null;
  let tailWasOn = false;
  let shownState = null;
  let liveCount = 0; // events the tail added above the current page (the total is the search's, not theirs)

  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const changes = { q: $('q').value, sort: $('f-sort').value, event: '' };
    for (const name of FILTERS) {
      changes[name] = $(`f-${name}`).value.trim();
    }
    const label = $('f-label').value.trim();
    if (label) {
      const eq = label.indexOf('=');
      if (eq <= 0) {
        showQueryError('A label filter is written key=value, e.g. env=prod.');
        return;
      }
      const key = label.slice(0, eq).trim();
      changes.labels = [...app.state.labels.filter(([k]) => k !== key), [key, label.slice(eq + 1).trim()]];
      $('f-label').value = '';
    }
    app.navigate(changes);
  });
  $('tail-toggle').addEventListener('click', () => (tail ? pauseTail() : resumeTail()));
  $('download-csv').addEventListener('click', () => download('csv', 'text/csv'));
  $('download-ndjson').addEventListener('click', () => download('ndjson', 'application/x-ndjson'));

  function showQueryError(message) {
    const box = $('query-error');
    replace(box, message);
    box.hidden = !message;
  }

  function fillForm(state) {
    $('q').value = state.q;
    $('f-sort').value = state.sort;
    for (const name of FILTERS) {
      $(`f-${name}`).value = state[name];
    }
    const chips = [];
    for (const name of FILTERS) {
      if (state[name]) {
        chips.push(chip(`${name.replace('action_', '')}: ${state[name]}`, { [name]: '' }));
      }
    }
    for (const [key, value] of state.labels) {
      chips.push(chip(`label ${key}: ${value}`, { labels: state.labels.filter(([k]) => k !== key) }));
    }
    replace($('chips'), chips);
  }

  function chip(label, removal) {
    return el('span', { class: 'chip' }, label,
      el('button', { type: 'button', 'aria-label': `remove filter ${label}`, onclick: () => app.navigate(removal) }, '×'));
  }

  async function render(state, signal) {
    shownState = state;
    fillForm(state);
    showQueryError('');
    if (tail) {
      restartTail(state);
    }
    const list = $('results');
    const offset = (state.page - 1) * PAGE_SIZE;
    delete $('total').dataset.total; // present again once this search's results are shown
    liveCount = 0;
    replace($('live-count'));
    replace($('total'), 'Searching…');
    let body;
    try {
      body = await getJson(apiUrl('/v1/search', [...searchParams(state), ['limit', String(PAGE_SIZE)],
        ['offset', String(offset)]]), { signal });
    } catch (e) {
      results = [];
      replace(list);
      replace($('total'));
      replace($('pager'));
      replace($('facets'));
      replace($('histogram'));
      if (e.status === 400) {
        showQueryError(e.message);
      } else {
        app.fail(e, $('total'), 'The search failed');
      }
      return;
    }
    results = Array.isArray(body.results) ? body.results.filter((r) => r && typeof r === 'object') : [];
    const total = Number(body.total) || 0;
    cursor = results.findIndex((r) => r.id === state.event);
    replace(list, results.map((event) => item(state, event, false)));
    const totalBox = $('total');
    replace(totalBox, `${total} matching event${total === 1 ? '' : 's'}`);
    totalBox.dataset.total = String(total);
    renderPager(state, total);
    markRendered();
    renderFacets(app, $('facets'), state, results, signal);
    renderHistogram(app, $('histogram'), state, signal);
  }

  function item(state, event, live) {
    const id = String(event.id);
    return resultItem(event, {
      href: toSearch(withChanges(state, { event: id })),
      selected: id === state.event,
      live,
      onOpen: () => app.navigate({ event: id }),
    });
  }

  function renderPager(state, total) {
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    replace($('pager'),
      el('button', { type: 'button', id: 'page-prev', disabled: state.page <= 1,
        onclick: () => app.navigate({ page: state.page - 1, event: '' }) }, '‹ Previous'),
      el('span', { id: 'page-info' }, `page ${state.page} of ${pages}`),
      el('button', { type: 'button', id: 'page-next', disabled: state.page >= pages,
        onclick: () => app.navigate({ page: state.page + 1, event: '' }) }, 'Next ›'));
  }

  /** For the browser benchmark and tests: the time from navigation start to the first rendered results. */
  function markRendered() {
    if (!document.documentElement.dataset.resultsRenderedMs) {
      document.documentElement.dataset.resultsRenderedMs = String(Math.round(performance.now()));
      performance.mark('trailproof:results-rendered');
    }
  }

  // The live tail.
  function resumeTail() {
    tailWasOn = true;
    restartTail(shownState);
  }

  function pauseTail() {
    if (tail) {
      tail.stop();
      tail = null;
    }
    showTailState('paused');
  }

  function restartTail(state) {
    if (tail) {
      tail.stop();
    }
    tail = startTail(streamParams(state), {
      onEvent: (event) => {
        const list = $('results');
        list.prepend(item(state, event, true));
        liveCount += 1;
        replace($('live-count'), `+${liveCount} live`);
        while (list.children.length > PAGE_SIZE + MAX_LIVE_ROWS) {
          list.lastElementChild.remove();
        }
      },
      onState: (s, error) => {
        if (s === 'failed') {
          tail = null;
          app.fail(error, $('tail-state'), 'The live tail stopped');
          showTailState('paused', error && error.message);
        } else if (s !== 'stopped') {
          showTailState(s, error && error.message);
        }
      },
    });
  }

  function showTailState(s, detail) {
    const on = s !== 'paused';
    const button = $('tail-toggle');
    button.setAttribute('aria-pressed', String(on));
    replace(button, on ? 'Pause live tail' : 'Start live tail');
    const state = $('tail-state');
    state.className = `tail-state ${s}`;
    state.dataset.state = s;
    const words = {
      connecting: 'Connecting to the live stream…', live: 'LIVE: new matching events appear at the top',
      retrying: `Reconnecting to the live stream${detail ? ` (${detail})` : ''}…`,
      paused: tailWasOn ? 'PAUSED: new events are not shown; the list is a snapshot' : '',
    };
    replace(state, words[s] || '');
    $('tail-paused').hidden = !(s === 'paused' && tailWasOn);
  }

  async function download(format, type) {
    try {
      const response = await get(apiUrl('/v1/search', [...searchParams(shownState), ['format', format]]));
      const blob = new Blob([await response.arrayBuffer()], { type });
      saveBlob(blob, `trailproof-search.${format}`);
      notice(`Downloaded trailproof-search.${format} (${blob.size} bytes, `
        + `${response.headers.get('X-Total-Count') || '?'} matches)`);
    } catch (e) {
      app.fail(e, $('notice'), `The ${format.toUpperCase()} download failed`);
    }
  }

  // Keyboard: j / k move through the results, Enter opens the selected one.
  function move(delta) {
    const rows = [...$('results').querySelectorAll('li.result')];
    if (!rows.length) {
      return;
    }
    rows.forEach((r) => r.classList.remove('cursor'));
    cursor = Math.min(rows.length - 1, Math.max(0, cursor + delta));
    rows[cursor].classList.add('cursor');
    rows[cursor].querySelector('a').focus({ preventScroll: true });
    rows[cursor].scrollIntoView({ block: 'nearest' });
  }

  function openSelected() {
    const rows = [...$('results').querySelectorAll('li.result')];
    if (cursor >= 0 && cursor < rows.length) {
      app.navigate({ event: rows[cursor].dataset.id });
    }
  }

  showTailState('paused');
  return { render, move, openSelected, hide: () => pauseTail() };
}
