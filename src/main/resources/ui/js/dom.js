// Building the page from data without ever parsing data as HTML. Every piece of event text goes in
// through text nodes (textContent); element names and attribute names come only from this code.
// The one markup that comes from the server, a highlight fragment, is not given to the HTML
// parser either: highlightFragment reads its tiny grammar (escaped text with <em>..</em>) itself,
// so a fragment that held anything else would show as text, not become markup.

/**
 * Creates an element. attrs: plain attributes, except `class`, `dataset` (object) and `on<event>`
 * (a function, added as a listener). Children: nodes, or anything else shown as text; null and
 * undefined are skipped.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) {
      continue;
    }
    if (name === 'class') {
      node.className = value;
    } else if (name === 'dataset') {
      Object.assign(node.dataset, value);
    } else if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    if (Array.isArray(child)) {
      append(node, child);
    } else if (child instanceof Node) {
      node.append(child);
    } else {
      node.append(document.createTextNode(String(child)));
    }
  }
}

/** Replaces every child of node. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The text of the escapes the service writes in fragments (src/site/search.md#get-v1search). */
export function unescapeFragmentText(text) {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]);
}

/**
 * A highlight fragment as nodes: text, with the matched words in <em> elements. Anything that is
 * not exactly <em> or </em> stays text, whatever it looks like.
 */
export function highlightFragment(fragment) {
  const out = document.createDocumentFragment();
  let marked = false;
  for (const part of String(fragment).split(/(<em>|<\/em>)/)) {
    if (part === '<em>') {
      marked = true;
    } else if (part === '</em>') {
      marked = false;
    } else if (part) {
      const text = unescapeFragmentText(part);
      out.append(marked ? el('em', {}, text) : document.createTextNode(text));
    }
  }
  return out;
}

/** Shows a short-lived message in the status line at the foot of the page. */
export function notice(text, kind = 'info') {
  const bar = document.getElementById('notice');
  if (!bar) {
    return;
  }
  replace(bar, text);
  bar.className = `notice ${kind}`;
  bar.hidden = false;
}

/** Saves a Blob as a file through a temporary link (the server's own name when it sent one). */
export function saveBlob(blob, fileName) {
  const href = URL.createObjectURL(blob);
  const link = el('a', { href, download: fileName, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** A file name made only of safe characters. */
export function safeFileName(text) {
  return String(text).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'download';
}
