// Wiring: the state in the address, which view shows, the API key dialog, the UTC/local switch
// and the keyboard. Each render aborts the requests of the one before it, so a slow answer never
// paints over a newer view.

import { apiKey, setApiKey } from './api.js';
import { createAgentsView } from './agents-view.js';
import { createCoverageView } from './coverage-view.js';
import { createApprovalsView } from './approvals-view.js';
import { createDetailView } from './detail-view.js';
import { el, replace } from './dom.js';
import { createSearchView } from './search-view.js';
import {
  displayName, goSignIn, hasRole, loadSession, session, signedOutHere, signInAvailable, signInNow, signOut,
} from './signin.js';
import { setShowsLocal, showsLocal } from './time.js';
import { createTimestampsView } from './timestamps-view.js';
import { readState, toSearch, VIEWS, withChanges } from './url-state.js';

const $ = (id) => document.getElementById(id);

const app = {
  state: readState(location.search),

  /** Shows a new state: pushed to the history (or replacing the current entry), then rendered. */
  navigate(changes, { replace: replaceEntry = false } = {}) {
    const next = withChanges(app.state, changes);
    history[replaceEntry ? 'replaceState' : 'pushState'](null, '', toSearch(next));
    render();
  },

  /**
   * Shows a failed request where it happened: a 401 sends the person to sign in (keeping this
   * address) when the service signs people in and no key is in use, else opens the key dialog with
   * the server's sentence; an abort (a newer render) is ignored; anything else is written into `where`.
   */
  fail(error, where, what) {
    if (!error || error.name === 'AbortError') {
      return;
    }
    if (error.status === 401) {
      if (signInAvailable() && !apiKey()) {
        if (!signedOutHere() && goSignIn()) {
          return;
        }
        showSignedOut();
      } else {
        askForKey(error.message);
      }
    }
    if (where) {
      where.append(el('p', { class: 'error', role: 'alert' }, `${what}: ${error.message || error}`));
    }
  },
};

const views = {};
let controller = null;
let previous = null;

function render() {
  const state = readState(location.search);
  app.state = state;
  if (controller) {
    controller.abort();
  }
  controller = new AbortController();
  const { signal } = controller;
  for (const name of VIEWS) {
    $(`view-${name}`).hidden = name !== state.view;
    $(`nav-${name}`).classList.toggle('active', name === state.view);
  }
  document.title = `trailproof · ${state.view}${state.q ? `: ${state.q}` : ''}`;
  if (state.view === 'search') {
    // Opening or closing an event leaves the search as it is: only the detail is drawn again.
    const sameSearch = previous && previous.view === 'search'
      && toSearch({ ...previous, event: '' }) === toSearch({ ...state, event: '' });
    if (!sameSearch) {
      views.search.render(state, signal);
    } else {
      document.querySelectorAll('#results li.result').forEach((li) => li.classList.toggle('open', li.dataset.id === state.event));
    }
    views.detail.render(state, signal);
  } else {
    views.search.hide();
    views.detail.hide();
    views[state.view].render(state, signal);
  }
  previous = state;
}

// API key: asked for on a 401, kept in sessionStorage for this tab only.
function askForKey(reason) {
  const dialog = $('key-dialog');
  replace($('key-reason'), reason || 'Enter the API key to use for this tab.');
  $('key-input').value = '';
  if (!dialog.open) {
    dialog.showModal();
  }
  $('key-input').focus();
}

function bindKeyDialog() {
  const dialog = $('key-dialog');
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    setApiKey($('key-input').value.trim());
    dialog.close();
    updateKeyButton();
    previous = null;
    render();
  });
  $('key-cancel').addEventListener('click', () => dialog.close());
  $('key-forget').addEventListener('click', () => {
    setApiKey('');
    dialog.close();
    updateKeyButton();
  });
  $('key-button').addEventListener('click', () => askForKey(apiKey() ? 'An API key is kept for this tab; '
    + 'enter another one or forget it.' : 'Enter the API key to use for this tab.'));
}

function updateKeyButton() {
  replace($('key-button'), apiKey() ? 'API key ✓' : 'API key');
}

// Sign-in (src/site/console.md#signing-in): who is signed in, sign-out, and what the roles allow.
function showSession() {
  const s = session();
  $('who').hidden = !s;
  $('sign-out').hidden = !s;
  $('sign-in').hidden = Boolean(s) || !signInAvailable();
  $('key-button').hidden = Boolean(s);
  if (s) {
    replace($('who'), displayName(s));
    $('who').title = `signed in: ${displayName(s)} (${s.subject}); roles ${(s.roles || []).join(', ')}`;
    // What the roles may not do is not offered: approvals need the approve role.
    $('nav-approvals').hidden = !hasRole('approve');
  }
}

function showSignedOut() {
  $('sign-in').hidden = false;
  $('sign-out').hidden = true;
  $('who').hidden = true;
  const bar = $('notice');
  replace(bar, 'You are signed out. Press "Sign in" to continue.');
  bar.className = 'notice info';
  bar.hidden = false;
}

function bindSignIn() {
  $('sign-in').addEventListener('click', () => signInNow());
  $('sign-out').addEventListener('click', () => signOut());
}

function bindTimeZone() {
  const button = $('tz-toggle');
  const label = () => replace(button, showsLocal() ? 'Times: local' : 'Times: UTC');
  label();
  button.addEventListener('click', () => {
    setShowsLocal(!showsLocal());
    label();
    previous = null;
    render();
  });
}

// Keyboard (src/site/console.md): "/" focuses the query, j / k move through results, Enter opens one,
// Escape closes the detail. Keys typed into a field are the field's.
function bindKeyboard() {
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || $('key-dialog').open) {
      return;
    }
    const target = e.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable
      || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
    if (typing) {
      if (e.key === 'Escape') {
        target.blur();
      }
      return;
    }
    if (app.state.view !== 'search') {
      return;
    }
    if (e.key === '/') {
      e.preventDefault();
      $('q').focus();
      $('q').select();
    } else if (e.key === 'j') {
      views.search.move(1);
    } else if (e.key === 'k') {
      views.search.move(-1);
    } else if (e.key === 'Enter' && !(target instanceof HTMLAnchorElement || target instanceof HTMLButtonElement)) {
      views.search.openSelected();
    } else if (e.key === 'Escape' && app.state.event) {
      app.navigate({ event: '' });
    }
  });
}

function bindNavigation() {
  for (const name of VIEWS) {
    $(`nav-${name}`).addEventListener('click', (e) => {
      e.preventDefault();
      app.navigate({ view: name, event: '' });
    });
  }
  window.addEventListener('popstate', render);
}

views.search = createSearchView(app);
views.detail = createDetailView(app);
views.agents = createAgentsView(app);
views.coverage = createCoverageView(app);
views.approvals = createApprovalsView(app);
views.timestamps = createTimestampsView(app);
bindKeyDialog();
updateKeyButton();
bindTimeZone();
bindKeyboard();
bindNavigation();
bindSignIn();
loadSession().then(() => {
  showSession();
  if (!session() && signInAvailable() && !apiKey() && signedOutHere()) {
    showSignedOut();
    return;
  }
  render();
});
