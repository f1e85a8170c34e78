// Drives the official Anthropic SDK through the gateway: node anthropic-client.mjs GATEWAY_URL AGENT SESSION.
// Prints one JSON object with what the SDK returned for each call (or the error it raised).
import Anthropic from '@anthropic-ai/sdk';

const [base, agent, session] = process.argv.slice(2);
const client = new Anthropic({
  baseURL: base,
  apiKey: 'ant!caller!secret!5Rt8',
  maxRetries: 0,
  timeout: 120_000,
  defaultHeaders: { 'X-Trailproof-Agent': agent, 'X-Trailproof-Session': session },
});
const out = {};

async function failure(call) {
  try {
    await call();
    return { status: null };
  } catch (e) {
    return { status: e.status ?? null, type: e.error?.error?.type ?? null, message: e.error?.error?.message ?? e.message };
  }
}

const plain = await client.messages.create({
  model: 'fake-plain',
  max_tokens: 100,
  system: 'Be brief.',
  messages: [{ role: 'user', content: 'Say hello' }],
});
out.plain = { content: plain.content, stop: plain.stop_reason, usage: plain.usage };

const stream = client.messages.stream({
  model: 'fake-tools',
  max_tokens: 200,
  messages: [{ role: 'user', content: 'Weather in Lima?' }],
  tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
});
let text = '';
stream.on('text', (t) => { text += t; });
const message = await stream.finalMessage();
out.stream = { text, content: message.content, stop: message.stop_reason, usage: message.usage };

out.overloaded = await failure(() => client.messages.create({
  model: 'fake-overloaded', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
out.dropped = await failure(() => client.messages.create({
  model: 'fake-drop', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));

console.log(JSON.stringify(out));
