// A stored event as collapsible, pretty JSON: objects and arrays are <details> elements, open to
// the given depth; keys and values are text nodes. Values keep the form the service returned them in.

import { el } from './dom.js';

const OPEN_DEPTH = 2;

/** The tree for a parsed JSON value. */
export function jsonTree(value) {
  return el('div', { class: 'json' }, node(value, 0));
}

function node(value, depth) {
  if (value === null) {
    return el('span', { class: 'json-null' }, 'null');
  }
  if (Array.isArray(value)) {
    if (!value.length) {
      return el('span', { class: 'json-punct' }, '[]');
    }
    return container('[', ']', `${value.length} item${value.length === 1 ? '' : 's'}`,
      value.map((item) => el('li', {}, node(item, depth + 1))), depth);
  }
  switch (typeof value) {
    case 'object': {
      const keys = Object.keys(value);
      if (!keys.length) {
        return el('span', { class: 'json-punct' }, '{}');
      }
      return container('{', '}', `${keys.length} key${keys.length === 1 ? '' : 's'}`,
        keys.map((key) => el('li', {}, el('span', { class: 'json-key' }, JSON.stringify(key)), ': ',
          node(value[key], depth + 1))), depth);
    }
    case 'string':
      return el('span', { class: 'json-string' }, JSON.stringify(value));
    case 'number':
      return el('span', { class: 'json-number' }, String(value));
    case 'boolean':
      return el('span', { class: 'json-bool' }, String(value));
    default:
      return el('span', {}, String(value));
  }
}

function container(open, close, summary, items, depth) {
  return el('details', { open: depth < OPEN_DEPTH },
    el('summary', {}, el('span', { class: 'json-punct' }, open), el('span', { class: 'json-count' }, ` ${summary} `)),
    el('ul', {}, items),
    el('span', { class: 'json-punct' }, close));
}
