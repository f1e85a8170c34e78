// Drives the official OpenAI SDK through the gateway: node openai-client.mjs GATEWAY_URL AGENT SESSION.
// Prints one JSON object with what the SDK returned for each call (or the error it raised).
import OpenAI from 'openai';

const [base, agent, session] = process.argv.slice(2);
const client = new OpenAI({
  baseURL: `${base}/v1`,
  apiKey: 'oai!caller!secret!7Hq2',
  maxRetries: 0,
  timeout: 120_000,
  defaultHeaders: { 'X-Trailproof-Agent': agent, 'X-Trailproof-Session': session },
});
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const out = {};

async function failure(call) {
  try {
    await call();
    return { status: null };
  } catch (e) {
    return { status: e.status ?? null, message: e.error?.message ?? e.message, type: e.error?.type ?? null };
  }
}

const plain = await client.chat.completions.create({
  model: 'fake-plain',
  messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello to ada@example.com' }],
  temperature: 0.5,
});
out.chatPlain = { content: plain.choices[0].message.content, finish: plain.choices[0].finish_reason, usage: plain.usage };

const stream = await client.chat.completions.create({
  model: 'fake-tools',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [weatherTool],
});
const calls = [];
let finish = null;
let usage = null;
for await (const chunk of stream) {
  for (const choice of chunk.choices) {
    for (const piece of choice.delta.tool_calls ?? []) {
      calls[piece.index] ??= { id: '', name: '', arguments: '' };
      if (piece.id) calls[piece.index].id = piece.id;
      if (piece.function?.name) calls[piece.index].name = piece.function.name;
      calls[piece.index].arguments += piece.function?.arguments ?? '';
    }
    finish = choice.finish_reason ?? finish;
  }
  usage = chunk.usage ?? usage;
}
out.chatStream = { calls, finish, usage };

const resp = await client.responses.create({ model: 'fake-plain', input: 'Say hello', instructions: 'Be brief.' });
out.responsesPlain = { text: resp.output_text, usage: resp.usage };

const rstream = await client.responses.create({
  model: 'fake-tools',
  input: [{ role: 'user', content: 'Weather in Oslo?' }],
  tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters }],
  stream: true,
});
let completed = null;
const types = [];
for await (const event of rstream) {
  types.push(event.type);
  if (event.type === 'response.completed') completed = event.response;
}
out.responsesStream = { types, output: completed?.output, usage: completed?.usage };

out.error400 = await failure(() => client.chat.completions.create({
  model: 'fake-error-400', messages: [{ role: 'user', content: 'x' }], temperature: 9 }));
out.error500 = await failure(() => client.chat.completions.create({
  model: 'fake-error-500', messages: [{ role: 'user', content: 'x' }] }));
out.dropped = await failure(() => client.chat.completions.create({
  model: 'fake-drop', messages: [{ role: 'user', content: 'x' }] }));
const models = await client.models.list();
out.models = models.data.map((m) => m.id);

console.log(JSON.stringify(out));
