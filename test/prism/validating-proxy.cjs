// test/prism/validating-proxy.cjs - an HTTP proxy that forwards every request
// and answer unchanged and has Prism (@stoplight/prism-http, the engine of
// `prism proxy`) check each pair against docs/openapi.yaml.
//
//   node validating-proxy.cjs DOCUMENT LISTEN_PORT UPSTREAM_PORT LOG_FILE
//
// Why not `prism proxy` itself: it rewrites what passes through (re-serialised
// JSON bodies, default Accept/User-Agent headers, Host dropped, CORS headers
// added, OPTIONS answered itself, redirects followed, Set-Cookie headers folded
// into one: stoplightio/prism#2676, a 501 replaced by a mock), so the tests
// would no longer see what authd sends. Here the bytes pass as they are (only
// the HTTP/1.1 framing is Node's) and Prism's own router and validators
// (route, validateSecurity, validateInput, validateOutput, composed by
// prism-core's factory exactly as `prism proxy` composes them) judge a copy.
//
// Verdict per exchange, one JSON line in LOG_FILE ("violation": true fails
// the test; harness.sh reads the file when the stack stops):
//   - the path is not in the document: "outside" (static files, the front
//     server's pages, deliberately wrong paths); a violation only when a JSON
//     2xx came back (a route the document misses);
//   - the path is, the method is not: a violation when the answer is 2xx/3xx
//     (an operation the document misses), else "outside";
//   - the operation matches: every response violation Prism reports is one
//     (an undocumented status included, which Prism only warns about for
//     non-2xx answers), except the front server's own HTML error page (413
//     body too large for it, 503 authd down...: the document describes authd,
//     not lighttpd's pages); request violations (bad body, missing
//     credentials) are violations only when authd nevertheless answered
//     2xx/3xx: the black-box tests send invalid requests on purpose, and a
//     documented 4xx is the right answer to them.
// Judged as authd's route table and HTTP define them: one trailing slash is
// the same route; HEAD is the GET (or documented HEAD) without body schemas;
// a Basic password may hold colons (see withRfc7617Password).
// On SIGTERM: stops accepting, finishes the validations in flight, writes a
// summary line and exits.
'use strict';

const http = require('node:http');
const fs = require('node:fs');
const E = require('fp-ts/Either');
const TE = require('fp-ts/TaskEither');
const typeIs = require('type-is');
const crypto = require('node:crypto');
const os = require('node:os');
const path = require('node:path');
// Prism's engine as @stoplight/prism-http's createInstance composes it, from
// its parts: its index also loads the mocker (Faker and JSON Schema
// sampling), which a proxy never calls and which took half of the proxy's
// start-up, paid on every stack start of the Prism suite.
const { factory } = require('@stoplight/prism-core');
const route = require('@stoplight/prism-http/dist/router').default;
const { validateInput, validateOutput, validateSecurity } = require('@stoplight/prism-http/dist/validator');
const prismVersion = require('@stoplight/prism-http/package.json').version;

const [document, listenPort, upstreamPort, logFile] = process.argv.slice(2);
if (!logFile) {
  console.error('usage: validating-proxy.cjs DOCUMENT LISTEN_PORT UPSTREAM_PORT LOG_FILE');
  process.exit(2);
}
const log = fs.openSync(logFile, 'a');
const record = entry => fs.writeSync(log, JSON.stringify(entry) + '\n');

const quietLogger = {
  child() { return quietLogger; },
  info() {}, warn() {}, error() {}, debug() {}, trace() {}, success() {}, fatal() {},
};

const config = {
  isProxy: true,
  upstream: new URL(`http://127.0.0.1:${upstreamPort}`),
  checkSecurity: true,
  validateRequest: true,
  validateResponse: true,
  errors: false,
  mock: { dynamic: false },
};

// The answer was already received from upstream: Prism's "forward" step hands
// it over instead of fetching again. The mock step is never taken by a proxy;
// were it taken, the exchange would be judged a violation ("could not judge").
const neverMock = () => () => E.left(new Error('the proxy does not mock'));
function prismFor(response) {
  return factory(config, {
    logger: quietLogger,
    route,
    validateInput,
    validateOutput,
    validateSecurity,
    mock: neverMock,
    forward: () => () => TE.right(response),
  });
}

// The document's operations as Prism reads them ($refs resolved), kept as
// JSON under the temporary directory, named by the document's and Prism's
// version: reading the YAML took most of the rest of the start-up, once per
// stack start, for the same document all through a test run.
async function operationsOf(documentPath) {
  const text = fs.readFileSync(documentPath);
  const key = crypto.createHash('sha256').update(text).update(prismVersion).digest('hex').slice(0, 32);
  const cached = path.join(process.env.PRISM_CACHE_DIR || os.tmpdir(), `authd-prism-operations-${key}.json`);
  try {
    return JSON.parse(fs.readFileSync(cached, 'utf8'));
  } catch {
    // absent (or being written by another proxy): read the document
  }
  const { getHttpOperationsFromSpec } = require('@stoplight/prism-http/dist/utils/operations');
  const operations = await getHttpOperationsFromSpec(documentPath);
  const partial = `${cached}.${process.pid}`;
  fs.writeFileSync(partial, JSON.stringify(operations), { mode: 0o600 });
  fs.renameSync(partial, cached);
  return operations;
}

function queryOf(searchParams) {
  const params = {};
  for (const key of new Set(searchParams.keys())) {
    const values = searchParams.getAll(key);
    params[key] = values.length === 1 ? values[0] : values;
  }
  return params;
}

// As prism-http-server reads a request body and prism-http parses an answer's.
function parseBody(buffer, type, status) {
  if (buffer.length === 0) return { body: status === undefined ? null : '' };
  const text = buffer.toString('utf8');
  if (status !== 204 && typeIs.is(type || '', ['application/json', 'application/*+json'])) {
    try {
      return { body: JSON.parse(text) };
    } catch (e) {
      return { body: text, error: `the body is not JSON although Content-Type says ${type}: ${e.message}` };
    }
  }
  return { body: text };
}

// Node folds repeated request headers; answers keep every Set-Cookie (joined
// as node-fetch's headers.raw() + Prism's parseResponseHeaders do).
function headersOf(rawHeaders) {
  const out = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    out[name] = name in out ? `${out[name]},${rawHeaders[i + 1]}` : rawHeaders[i + 1];
  }
  return out;
}

// The statuses a front server answers itself, with an HTML page of its own
// (a body too large for it, authd down or too slow, a request it refuses).
const FRONT_STATUSES = new Set([400, 408, 411, 413, 414, 431, 500, 502, 503, 504]);
const documentsHtml = (op, status) => op.responses.some(r =>
  r.code === String(status) && (r.contents || []).some(c => c.mediaType === 'text/html'));

// Credentials in a query string stay out of the log (and of a failing test's output).
const redacted = url => url.replace(/([?&][^=&]*(?:token|password|secret|code)[^=&]*=)[^&]*/gi, '$1...');

const describe = v => `${v.path && v.path.length ? v.path.join('.') + ': ' : ''}${v.message}`;
const isError = v => v.severity === 0; // DiagnosticSeverity.Error

// Prism's Basic check wants exactly one colon in the decoded credentials, but
// RFC 7617 2 lets the password hold colons (the user-id ends at the first one;
// stoplightio/prism#2814, not fixed in 5.16). Prism judges a copy whose
// password has its colons replaced; what was forwarded is untouched.
function withRfc7617Password(request, entry) {
  const header = request.headers.authorization;
  const m = /^basic\s+(\S+)$/i.exec(header || '');
  if (!m) return request;
  const decoded = Buffer.from(m[1], 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.indexOf(':', colon + 1) < 0) return request;
  const judged = decoded.slice(0, colon + 1) + decoded.slice(colon + 1).replace(/:/g, '_');
  entry.password_with_colons = true;
  return { ...request, headers: { ...request.headers, authorization: `Basic ${Buffer.from(judged).toString('base64')}` } };
}

let operations;
let pending = 0;
let exchanges = 0;
let violations = 0;
let outside = 0;
let frontPages = 0;
const exercised = new Map();

async function judge(request, response) {
  const ok = status => status >= 400;
  const entry = { method: request.method.toUpperCase(), url: redacted(request.rawUrl), status: response.statusCode };
  request = withRfc7617Password(request, entry);
  let resources = operations;
  let routed = route({ resources, input: request });
  if (/.\/$/.test(request.url.path)) {
    // authd's route table takes one trailing slash as the same route
    // (t_routing.sh: /records/ is /records, not /records/{id} with an empty
    // id): judged as the path without it when that path is in the document.
    const trimmed = { ...request, url: { ...request.url, path: request.url.path.slice(0, -1) } };
    const again = route({ resources, input: trimmed });
    if (E.isRight(again) || !/NO_PATH_MATCHED/.test(again.left.name)) {
      routed = again;
      request = trimmed;
      entry.trailing_slash = true;
    }
  }
  if (request.method === 'head') {
    // HEAD is GET without the body (RFC 9110 9.3.2): judged as the HEAD the
    // document names, else as the GET, the answer's body schemas aside.
    if (E.isLeft(routed) && /NO_METHOD_MATCHED/.test(routed.left.name)) {
      const asGet = route({ resources, input: { ...request, method: 'get' } });
      if (E.isRight(asGet)) {
        routed = asGet;
        request = { ...request, method: 'get' };
        entry.head_as_get = true;
      }
    }
    if (E.isRight(routed)) {
      const op = routed.right;
      const withoutBodies = {
        ...op,
        responses: op.responses.map(r => ({ ...r, contents: (r.contents || []).map(c => ({ mediaType: c.mediaType })) })),
      };
      resources = [withoutBodies];
      routed = E.right(withoutBodies);
    }
  }
  if (E.isLeft(routed)) {
    const kind = routed.left.name || routed.left.type || String(routed.left);
    entry.outside = kind.replace(/^.*#/, '');
    const methodMissing = /NO_METHOD_MATCHED/.test(kind);
    const jsonAnswer = typeIs.is(response.headers['content-type'] || '', ['application/json']);
    if (!ok(response.statusCode) && (methodMissing || (jsonAnswer && response.statusCode < 300))) {
      entry.violations = [`answered ${response.statusCode} to an operation docs/openapi.yaml does not have`];
    }
  } else {
    const op = routed.right;
    entry.operation = `${op.method.toUpperCase()} ${op.path}`;
    exercised.set(entry.operation, (exercised.get(entry.operation) || 0) + 1);
    const result = await prismFor(response).request(request, resources)();
    const found = [];
    if (E.isLeft(result)) {
      found.push(`Prism could not judge: ${result.left.message || result.left}`);
    } else {
      const { input, output } = result.right.validations;
      const fromFront = FRONT_STATUSES.has(response.statusCode) &&
        typeIs.is(response.headers['content-type'] || '', ['text/html']) &&
        !documentsHtml(op, response.statusCode);
      if (fromFront) entry.front_page = true;
      else for (const v of output) found.push(`response ${describe(v)}`);
      const inputErrors = input.filter(isError);
      if (inputErrors.length && !ok(response.statusCode)) {
        for (const v of inputErrors) found.push(`request ${describe(v)} (yet answered ${response.statusCode})`);
      } else if (inputErrors.length) {
        entry.invalid_request = inputErrors.map(describe);
      }
    }
    if (response.parseError) found.push(`response ${response.parseError}`);
    if (found.length) entry.violations = found;
  }
  exchanges++;
  if (entry.outside) outside++;
  if (entry.front_page) frontPages++;
  if (entry.violations) {
    violations++;
    entry.violation = true;
  }
  record(entry);
}

function forward(req, res) {
  const chunks = [];
  const url = new URL(req.url, 'http://proxy.invalid');
  const upstream = http.request({
    host: '127.0.0.1',
    port: Number(upstreamPort),
    method: req.method,
    path: req.url,
    headers: req.rawHeaders,
    agent: false,
    setHost: false,
    // From the client's own loopback address (tests sign in from 127.0.0.2 to
    // check per-address limits and trusted proxies).
    localAddress: req.socket.remoteAddress,
  });
  upstream.on('error', () => {
    // No answer upstream (the front server stopped): the client sees none either.
    req.socket.destroy();
  });
  req.on('data', chunk => chunks.push(chunk));
  req.pipe(upstream);
  upstream.on('response', answer => {
    const body = [];
    res.sendDate = false;
    res.writeHead(answer.statusCode, answer.statusMessage, answer.rawHeaders);
    answer.on('data', chunk => {
      body.push(chunk);
      res.write(chunk);
    });
    answer.on('end', () => {
      res.end();
      const headers = headersOf(answer.rawHeaders);
      const parsed = parseBody(Buffer.concat(body), headers['content-type'], answer.statusCode);
      const request = {
        method: req.method.toLowerCase(),
        url: { path: url.pathname, query: queryOf(url.searchParams) },
        headers: req.headers,
        body: parseBody(Buffer.concat(chunks), req.headers['content-type']).body,
        rawUrl: req.url,
      };
      const response = { statusCode: answer.statusCode, headers, body: parsed.body, parseError: parsed.error };
      pending++;
      judge(request, response)
        .catch(e => {
          violations++;
          record({ method: req.method, url: redacted(req.url), violation: true, violations: [`proxy error: ${e.stack}`] });
        })
        .finally(() => { pending--; });
    });
    answer.on('error', () => res.destroy());
  });
}

async function main() {
  operations = await operationsOf(document);
  const server = http.createServer({ requireHostHeader: false }, forward);
  // Timeouts are the front server's business, not the proxy's.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.keepAliveTimeout = 5000;
  server.on('clientError', (err, socket) => socket.destroy());
  server.listen(Number(listenPort), '127.0.0.1', () => {
    record({ ready: true, operations: operations.length });
  });
  server.on('error', e => {
    console.error(`validating-proxy: ${e.message}`);
    process.exit(e.code === 'EADDRINUSE' ? 3 : 1);
  });
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    const done = () => {
      if (pending > 0) return setTimeout(done, 20);
      record({ summary: true, exchanges, outside, front_pages: frontPages, violations, operations: Object.fromEntries(exercised) });
      process.exit(0);
    };
    done();
  });
}

main().catch(e => {
  console.error(`validating-proxy: ${e.stack}`);
  process.exit(1);
});
