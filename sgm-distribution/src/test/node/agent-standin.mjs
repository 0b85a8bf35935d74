// A scripted stand-in of the model APIs that Claude Code (the Anthropic Messages API) and Codex (the
// OpenAI Responses API) talk to, on loopback, so that the real agents run offline and every request
// they send can be read: each is appended to LOG as one JSON line {url, body}.
//
// Usage: node agent-standin.mjs PORT_FILE LOG   (listens on a free port and writes it to PORT_FILE)
// Env:   SCRIPT=text   every answer is the text REPLY (default)
//        SCRIPT=store  Claude Code: write WRITE_PATH (when set), find sgm's store tool through
//                      ToolSearch, call it with STORE_INPUT (JSON), then answer REPLY
//        REPLY         the final text (default "done")
import fs from 'node:fs';
import http from 'node:http';

const [portFile, logFile] = process.argv.slice(2);
const SCRIPT = process.env.SCRIPT || 'text';
const REPLY = process.env.REPLY || 'done';
const WRITE_PATH = process.env.WRITE_PATH || '';
const STORE_TOOL = 'mcp__sgm__sgm_store';
let counter = 0;

function sse(res, event, data) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The blocks of every message, whatever the message's content is. */
function blocks(messages) {
  const all = [];
  for (const message of messages || []) {
    if (Array.isArray(message.content)) all.push(...message.content);
  }
  return all;
}

/** What the scripted model does next: {text} or {tool: {name, input}}. */
function nextStep(body) {
  const tools = (body.tools || []).map((tool) => tool.name);
  if (SCRIPT !== 'store' || tools.length === 0) return { text: REPLY };
  const called = blocks(body.messages)
    .filter((block) => block.type === 'tool_use')
    .map((block) => block.name);
  if (WRITE_PATH && tools.includes('Write') && !called.includes('Write')) {
    return { tool: { name: 'Write', input: { file_path: WRITE_PATH, content: 'written in session one\n' } } };
  }
  if (!called.includes(STORE_TOOL)) {
    if (tools.includes(STORE_TOOL)) {
      return { tool: { name: STORE_TOOL, input: JSON.parse(process.env.STORE_INPUT) } };
    }
    if (tools.includes('ToolSearch') && !called.includes('ToolSearch')) {
      return { tool: { name: 'ToolSearch', input: { query: `select:${STORE_TOOL}`, max_results: 5 } } };
    }
    return { text: 'STANDIN_NO_STORE_TOOL' };
  }
  return { text: REPLY };
}

function messages(res, body) {
  const step = nextStep(body);
  const id = `msg_standin_${++counter}`;
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block = step.tool
    ? { type: 'tool_use', id: `toolu_standin_${counter}`, name: step.tool.name, input: step.tool.input }
    : { type: 'text', text: step.text };
  const stopReason = step.tool ? 'tool_use' : 'end_turn';
  const model = body.model || 'claude-sonnet-4-5';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stopReason, stop_sequence: null, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } });
  if (step.tool) {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.tool.input) } });
  } else {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: step.text } });
  }
  sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function responses(res, body) {
  const responseId = `resp_standin_${++counter}`;
  let sequence = 0;
  const event = (type, fields) => sse(res, type, { type, sequence_number: sequence++, ...fields });
  const base = { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model || 'gpt-5', status: 'in_progress', output: [] };
  const item = { type: 'message', id: `msg_${counter}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: REPLY, annotations: [] }] };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  event('response.created', { response: base });
  event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
  event('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: REPLY });
  event('response.output_item.done', { output_index: 0, item });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  event('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = { unparsed: raw };
    }
    fs.appendFileSync(logFile, `${JSON.stringify({ url: req.url, body })}\n`);
    const path = req.url.split('?')[0];
    if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"input_tokens":10}');
    } else if (req.method === 'POST' && path.endsWith('/messages')) {
      messages(res, body);
    } else if (req.method === 'POST' && path.endsWith('/responses')) {
      responses(res, body);
    } else if (path.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[],"models":[]}');
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"type":"not_found","message":"not scripted"}}');
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  fs.writeFileSync(`${portFile}.tmp`, String(server.address().port));
  fs.renameSync(`${portFile}.tmp`, portFile);
});
