// The timestamps view: the current root, the RFC 3161 timestamps (GET /v1/timestamps), the
// verification of the latest (GET /v1/timestamps/verify), and the signed checkpoint
// (GET /checkpoint) only where the service has one: the section stays absent unless it answers 200.

import { ApiError, apiUrl, get, getJson } from './api.js';
import { el, replace } from './dom.js';
import { formatTime } from './time.js';

const $ = (id) => document.getElementById(id);

export function createTimestampsView(app) {
  async function render(state, signal) {
    await Promise.all([root(signal), list(signal), latest(signal), checkpoint(signal)]);
  }

  async function root(signal) {
    try {
      const r = await getJson('/v1/merkle/root', { signal });
      replace($('current-root'), `tree size ${r.tree_size}, root ${r.root}`);
    } catch (e) {
      app.fail(e, $('current-root'), 'The current root is not available');
    }
  }

  async function list(signal) {
    const body = $('timestamps-body');
    try {
      const records = await getJson(apiUrl('/v1/timestamps', { limit: 100 }), { signal });
      const rows = (Array.isArray(records) ? records : []).filter((r) => r && typeof r === 'object').map((r) => el('tr', {},
        el('td', { title: String(r.timestamp ?? '') }, formatTime(r.timestamp)),
        el('td', { class: 'num' }, String(r.tree_size ?? '')),
        el('td', { class: 'hash' }, String(r.merkle_root ?? '')),
        el('td', {}, String(r.tsa ?? '')),
        el('td', { class: 'hash' }, String(r.serial_number ?? ''))));
      replace(body, rows.length ? rows : el('tr', {}, el('td', { colspan: 5, class: 'muted' }, 'Nothing was timestamped yet.')));
    } catch (e) {
      replace(body);
      app.fail(e, $('timestamps-error'), 'The timestamps cannot be listed');
    }
  }

  async function latest(signal) {
    const box = $('timestamp-verification');
    try {
      const v = await getJson('/v1/timestamps/verify', { signal });
      const checks = v.checks && typeof v.checks === 'object' ? v.checks : {};
      box.className = v.valid ? 'verification ok' : 'verification failed';
      replace(box,
        el('p', {}, v.valid ? `✓ the latest timestamp (${formatTime(v.tsa_time)}, tree size ${v.tree_size}) is valid`
          : `✗ the latest timestamp is not valid: ${String(v.error)}`),
        el('ul', { class: 'checks' }, Object.entries(checks).map(([name, ok]) => el('li', { class: ok ? 'ok' : 'failed' },
          `${ok ? '✓' : '✗'} ${name}`))),
        el('p', { class: 'muted' }, v.current_root_matches ? 'The current root is the stamped one.'
          : `The tree grew since (now ${v.current_tree_size} events); it ${v.consistent ? 'extends' : 'does NOT extend'} the stamped tree.`));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        box.className = 'verification';
        replace(box, el('p', { class: 'muted' }, 'Nothing was timestamped yet.'));
        return;
      }
      app.fail(e, box, 'The latest timestamp cannot be verified');
    }
  }

  async function checkpoint(signal) {
    const section = $('checkpoint-section');
    let text;
    try {
      text = await (await get('/checkpoint', { signal })).text();
    } catch {
      section.hidden = true; // no checkpoints on this service (or none signed yet): the view has none
      return;
    }
    replace($('checkpoint-text'), text);
    section.hidden = false;
    await compareCheckpoint(text, signal);
  }

  /**
   * Compares the checkpoint's tree size and root (its second and third lines, C2SP tlog-checkpoint)
   * with the root the API gives for that size. The signature is not checked here: the key to
   * trust must come from somewhere other than this server.
   */
  async function compareCheckpoint(text, signal) {
    const box = $('checkpoint-check');
    const [, sizeLine, rootLine] = text.split('\n');
    const size = Number(sizeLine);
    let rootHex = null;
    try {
      rootHex = Array.from(atob(rootLine || ''), (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
    } catch {
      // not base64: reported below
    }
    if (!Number.isSafeInteger(size) || size < 1 || !rootHex || rootHex.length !== 64) {
      replace(box, 'The checkpoint does not have the tlog-checkpoint form (origin, tree size, base64 root).');
      box.className = 'error';
      return;
    }
    try {
      const r = await getJson(apiUrl('/v1/merkle/root', { tree_size: size }), { signal });
      const same = r.root === rootHex;
      box.className = same ? 'verify-result ok' : 'verify-result failed';
      replace(box, same ? `✓ the checkpoint's root ${rootHex} is the tree's root at size ${size}`
        : `✗ the checkpoint says root ${rootHex} at size ${size}, the API says ${String(r.root)}`);
    } catch (e) {
      app.fail(e, box, 'The checkpoint cannot be compared with the tree');
    }
  }

  return { render };
}
