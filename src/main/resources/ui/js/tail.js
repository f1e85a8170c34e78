// The live tail: GET /v1/stream as Server-Sent Events read with fetch (src/site/live-stream.md and src/site/console.md).
// Why not EventSource: it cannot send the Authorization header. The SSE text is parsed here:
// events are separated by a blank line; "id", "event" and "data" fields are read, comments
// (": keep-alive") skipped. An "overflow" event (the server ended a slow stream) and a dropped
// connection both reconnect from the next unseen log index, so a tail loses nothing while on.

import { apiUrl, authHeaders, ApiError } from './api.js';

const RETRY_MILLIS = 2000;

/** Splits SSE text into complete events; returns [events, rest] where rest is an unfinished event. */
export function parseSse(buffer) {
  const events = [];
  const blocks = buffer.replace(/\r\n?/g, '\n').split('\n\n');
  const rest = blocks.pop();
  for (const block of blocks) {
    const event = { id: null, type: 'message', data: [] };
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) {
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') {
        event.id = value;
      } else if (field === 'event') {
        event.type = value;
      } else if (field === 'data') {
        event.data.push(value);
      }
    }
    if (event.data.length) {
      events.push({ id: event.id, type: event.type, data: event.data.join('\n') });
    }
  }
  return [events, rest];
}

/**
 * Starts a tail. params: the stream's filter parameters. onEvent(storedEvent) for each event;
 * onState(state, detail) with state one of 'connecting', 'live', 'retrying', 'failed', 'stopped'.
 * Returns {stop()}.
 */
export function startTail(params, { onEvent, onState }) {
  let controller = null;
  let stopped = false;
  let next = null; // the log index to resume from after a reconnect

  async function run() {
    while (!stopped) {
      controller = new AbortController();
      onState('connecting');
      try {
        const from = next === null ? [] : [['from', String(next)]];
        const response = await fetch(apiUrl('/v1/stream', [...params, ...from]), {
          headers: { ...authHeaders(), Accept: 'text/event-stream' },
          signal: controller.signal, cache: 'no-store', credentials: 'same-origin',
        });
        if (!response.ok) {
          let message = `the stream answered ${response.status}`;
          try {
            message = (await response.json()).error || message;
          } catch {
            // not the API's error shape
          }
          onState('failed', new ApiError(response.status, message));
          return;
        }
        onState('live');
        await read(response.body);
      } catch (e) {
        if (stopped) {
          return;
        }
        onState('retrying', e);
      }
      if (!stopped) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MILLIS));
      }
    }
  }

  async function read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return;
      }
      let events;
      [events, buffer] = parseSse(buffer + value);
      for (const event of events) {
        if (event.type === 'overflow') {
          const resume = safeJson(event.data);
          if (resume && Number.isSafeInteger(resume.resume_from)) {
            next = resume.resume_from;
          }
        } else if (event.type === 'event' || event.type === 'message') {
          const stored = safeJson(event.data);
          if (stored && typeof stored === 'object') {
            if (Number.isSafeInteger(stored.log_index)) {
              next = stored.log_index + 1;
            }
            onEvent(stored);
          }
        }
      }
    }
  }

  run();
  return {
    stop() {
      stopped = true;
      if (controller) {
        controller.abort();
      }
      onState('stopped');
    },
  };
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
