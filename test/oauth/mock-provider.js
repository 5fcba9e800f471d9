#!/usr/bin/env node
// test/oauth/mock-provider.js - a real OAuth 2.0 / OpenID Connect provider on
// loopback for authd's black-box tests (oauth2-mock-server 7.2.1), plus a small
// control server that sets how it behaves for the next requests.
//
//   node mock-provider.js [--port N] [--control-port N] [--blackhole-port N]
//                         [--ports-file PATH] [--parent-pid PID] [--issuer-trailing-slash]
//
// --issuer-trailing-slash: the issuer identifier is http://127.0.0.1:<port>/
// (as Auth0's are), in the discovery document and in every token's iss.
//
// Listens on 127.0.0.1 only (port 0 = any free port, the default):
//   provider   issuer http://127.0.0.1:<port>: /.well-known/openid-configuration,
//              /authorize (auto-approves: 302 to redirect_uri with code+state),
//              /token (PKCE checked; a code works once), /jwks (one RS256 key),
//              /userinfo.
//   control    http://127.0.0.1:<control-port>:
//                GET  /health          200 "ok"
//                GET  /state           {"mode":..., "delay_ms":..., "identity":{...}}
//                PUT  /identity  JSON  who the next sign-ins are: sub,
//                                      preferred_username, name, email go into the
//                                      ID token; /userinfo answers the whole object
//                                      (so GitHub style {id: 4242, login: "octocat",
//                                      name, email} works for a plain OAuth 2.0 client)
//                PUT  /mode      JSON  {"mode": NAME, "delay_ms": N}  (see MODES)
//                GET  /log             {"authorize":[query...], "token":[form...],
//                                      "userinfo":[{authorization}...]} (secrets kept:
//                                      it is a test provider)
//                DELETE /log           clears the log
//              (POST is accepted wherever PUT is.)
//   blackhole  a TCP port that accepts connections and never answers (a provider
//              that hangs), 127.0.0.1:<blackhole-port>.
//
// When all three listen it prints one line
//   ready issuer=http://127.0.0.1:P control=http://127.0.0.1:C blackhole=B
// and, with --ports-file, writes (atomically) lines a shell can source:
//   PROVIDER_PORT=P  PROVIDER_CONTROL_PORT=C  PROVIDER_BLACKHOLE_PORT=B  PROVIDER_PID=<pid>
//
// It exits on SIGTERM/SIGINT/SIGHUP, and when the process --parent-pid (default:
// the process that started it) is gone.
'use strict';

const http = require('node:http');
const net = require('node:net');
const fs = require('node:fs');
const path = require('node:path');
const { OAuth2Server } = require('oauth2-mock-server');

// The behaviours the control server can select. They stay until changed.
const MODES = {
  normal: 'everything as a correct provider does it',
  deny: '/authorize redirects back with error=access_denied and no code',
  bad_signature: 'the id_token in the token response has a corrupted signature',
  wrong_nonce: 'the id_token carries another nonce than the one authd sent',
  wrong_aud: 'the id_token is issued to another client (aud)',
  wrong_iss: 'the id_token names another issuer',
  expired_id_token: 'the id_token expired an hour ago',
  no_id_token: 'the token response has no id_token',
  token_error_500: 'the token endpoint answers 500 {"error":"server_error"}',
  invalid_grant: 'the token endpoint answers 400 {"error":"invalid_grant"} (an expired code)',
  invalid_client: 'the token endpoint answers 401 {"error":"invalid_client"} (our client is misconfigured)',
  slow: 'the token endpoint answers only after delay_ms (default 5000)',
  userinfo_error_500: '/userinfo answers 500',
};

function parseArgs(argv) {
  const opts = { port: 0, controlPort: 0, blackholePort: 0, portsFile: '', parentPid: process.ppid,
                 issuerTrailingSlash: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '--port': opts.port = Number(next()); break;
      case '--control-port': opts.controlPort = Number(next()); break;
      case '--blackhole-port': opts.blackholePort = Number(next()); break;
      case '--ports-file': opts.portsFile = next(); break;
      case '--parent-pid': opts.parentPid = Number(next()); break;
      case '--issuer-trailing-slash': opts.issuerTrailingSlash = true; break;
      case '-h': case '--help': usage(); break;
      default: usage(`unknown argument ${arg}`);
    }
  }
  return opts;
}

function usage(problem) {
  if (problem) process.stderr.write(`mock-provider: ${problem}\n`);
  process.stderr.write('usage: node mock-provider.js [--port N] [--control-port N] [--blackhole-port N] ' +
                       '[--ports-file PATH] [--parent-pid PID] [--issuer-trailing-slash]\n');
  process.exit(problem ? 2 : 0);
}

const opts = parseArgs(process.argv.slice(2));
const log = (...args) => process.stderr.write(`mock-provider: ${args.join(' ')}\n`);

const defaultIdentity = () => ({
  sub: 'mock-subject-1',
  preferred_username: 'mockuser',
  name: 'Mock User',
  email: 'mockuser@example.test',
});

const state = {
  mode: 'normal',
  delayMs: 5000,
  identity: defaultIdentity(),
  log: { authorize: [], token: [], userinfo: [] },
};

// Claims of the identity that go into an ID token (userinfo gets them all).
const ID_TOKEN_CLAIMS = ['sub', 'preferred_username', 'name', 'email', 'email_verified'];

// The ID token is the one built with an `aud` and without `scope` (the access
// token of an authorization_code grant carries `scope`, see oauth2-service.js).
const isIdToken = (payload) => payload.aud !== undefined && payload.scope === undefined;

// Replaces a character in the middle of the signature: still valid base64url,
// no longer the signature of this header and payload.
function corruptSignature(jwt) {
  const parts = jwt.split('.');
  const sig = parts[2];
  const i = Math.floor(sig.length / 2);
  parts[2] = sig.slice(0, i) + (sig[i] === 'A' ? 'B' : 'A') + sig.slice(i + 1);
  return parts.join('.');
}

async function main() {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  const service = server.service;

  service.on('beforeAuthorizeRedirect', (authorizeRedirect, req) => {
    state.log.authorize.push({ ...req.query });
    if (state.mode === 'deny') {
      const url = authorizeRedirect.url;
      url.searchParams.delete('code');
      url.searchParams.set('error', 'access_denied');
      url.searchParams.set('error_description', 'The user denied the request');
    }
  });

  service.on('beforeTokenSigning', (token) => {
    const payload = token.payload;
    const id = state.identity;
    if (id.sub !== undefined) payload.sub = String(id.sub);
    if (!isIdToken(payload)) return;
    for (const claim of ID_TOKEN_CLAIMS) {
      if (claim !== 'sub' && id[claim] !== undefined) payload[claim] = id[claim];
    }
    const now = Math.floor(Date.now() / 1000);
    switch (state.mode) {
      case 'wrong_nonce': payload.nonce = 'not-the-nonce-authd-sent'; break;
      case 'wrong_aud': payload.aud = 'another-client'; break;
      case 'wrong_iss': payload.iss = 'http://127.0.0.1:1/not-this-issuer'; break;
      case 'expired_id_token':
        payload.iat = now - 7200;
        payload.nbf = now - 7200;
        payload.exp = now - 3600;
        break;
      default: break;
    }
  });

  service.on('beforeResponse', (tokenResponse, req) => {
    const form = { ...(req.body || {}) };
    if (req.headers.authorization) form.authorization = req.headers.authorization;
    state.log.token.push(form);
    switch (state.mode) {
      case 'bad_signature':
        if (tokenResponse.body.id_token) tokenResponse.body.id_token = corruptSignature(tokenResponse.body.id_token);
        break;
      case 'no_id_token':
        delete tokenResponse.body.id_token;
        break;
      case 'token_error_500':
        tokenResponse.statusCode = 500;
        tokenResponse.body = { error: 'server_error', error_description: 'mock: the provider failed' };
        break;
      case 'invalid_grant':
        tokenResponse.statusCode = 400;
        tokenResponse.body = { error: 'invalid_grant', error_description: 'mock: the code has expired' };
        break;
      case 'invalid_client':
        tokenResponse.statusCode = 401;
        tokenResponse.body = { error: 'invalid_client', error_description: 'mock: unknown client' };
        break;
      case 'slow': {
        // The service answers with res.status(...).json(body) right after this
        // event: hold that answer back for delay_ms.
        const res = req.res;
        const json = res.json.bind(res);
        const delay = state.delayMs;
        res.json = (body) => {
          const timer = setTimeout(() => {
            if (!res.destroyed && !res.writableEnded) json(body);
          }, delay);
          res.on('close', () => clearTimeout(timer));
          return res;
        };
        break;
      }
      default: break;
    }
  });

  service.on('beforeUserinfo', (userinfoResponse, req) => {
    state.log.userinfo.push({ authorization: req.headers.authorization || '' });
    if (state.mode === 'userinfo_error_500') {
      userinfoResponse.statusCode = 500;
      userinfoResponse.body = { error: 'server_error' };
      return;
    }
    userinfoResponse.body = { ...state.identity };
  });

  // Explicitly 127.0.0.1: "localhost" may resolve to ::1 first.
  await server.start(opts.port, '127.0.0.1');
  const port = server.address().port;
  server.issuer.url = `http://127.0.0.1:${port}${opts.issuerTrailingSlash ? '/' : ''}`;

  // --- control server -------------------------------------------------------
  const control = http.createServer((req, res) => {
    const reply = (status, body) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json' });
      res.end(text + '\n');
    };
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { raw += chunk; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://control');
      const write = req.method === 'PUT' || req.method === 'POST';
      let body = {};
      if (write && raw.trim() !== '') {
        try {
          body = JSON.parse(raw);
        } catch (e) {
          return reply(400, { error: `body is not JSON: ${e.message}` });
        }
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
          return reply(400, { error: 'body must be a JSON object' });
        }
      }
      const shown = () => ({ mode: state.mode, delay_ms: state.delayMs, identity: state.identity });
      if (req.method === 'GET' && url.pathname === '/health') return reply(200, 'ok');
      if (req.method === 'GET' && url.pathname === '/state') return reply(200, shown());
      if (write && url.pathname === '/identity') {
        state.identity = Object.keys(body).length ? body : defaultIdentity();
        log(`identity ${JSON.stringify(state.identity)}`);
        return reply(200, shown());
      }
      if (write && url.pathname === '/mode') {
        const mode = body.mode ?? url.searchParams.get('mode') ?? 'normal';
        if (!Object.hasOwn(MODES, mode)) return reply(400, { error: `unknown mode '${mode}'`, modes: MODES });
        const delay = body.delay_ms ?? url.searchParams.get('delay_ms');
        if (delay !== undefined && delay !== null) {
          const n = Number(delay);
          if (!Number.isInteger(n) || n < 0) return reply(400, { error: 'delay_ms must be a whole number >= 0' });
          state.delayMs = n;
        }
        state.mode = mode;
        log(`mode ${mode}${mode === 'slow' ? ` (${state.delayMs} ms)` : ''}`);
        return reply(200, shown());
      }
      if (req.method === 'GET' && url.pathname === '/log') return reply(200, state.log);
      if (req.method === 'DELETE' && url.pathname === '/log') {
        state.log = { authorize: [], token: [], userinfo: [] };
        return reply(200, state.log);
      }
      return reply(404, { error: `no ${req.method} ${url.pathname}`, modes: MODES });
    });
  });
  await new Promise((resolve, reject) => {
    control.once('error', reject);
    control.listen(opts.controlPort, '127.0.0.1', resolve);
  });
  const controlPort = control.address().port;

  // --- blackhole: accepts, reads, never answers -------------------------------
  const held = new Set();
  const blackhole = net.createServer((socket) => {
    held.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => held.delete(socket));
  });
  await new Promise((resolve, reject) => {
    blackhole.once('error', reject);
    blackhole.listen(opts.blackholePort, '127.0.0.1', resolve);
  });
  const blackholePort = blackhole.address().port;

  if (opts.portsFile) {
    const tmp = `${opts.portsFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `PROVIDER_PORT=${port}\nPROVIDER_CONTROL_PORT=${controlPort}\n` +
                          `PROVIDER_BLACKHOLE_PORT=${blackholePort}\nPROVIDER_PID=${process.pid}\n`);
    fs.renameSync(tmp, path.resolve(opts.portsFile));
  }
  process.stdout.write(`ready issuer=${server.issuer.url} control=http://127.0.0.1:${controlPort} ` +
                       `blackhole=${blackholePort}\n`);

  let stopping = false;
  const stop = async (why) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${why})`);
    for (const socket of held) socket.destroy();
    blackhole.close();
    control.close();
    const forced = setTimeout(() => process.exit(0), 2000);
    forced.unref();
    try {
      await server.stop();
    } catch (e) {
      // already stopped
    }
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stop(signal));

  // Exit with the test that started us, however it ended.
  const parent = opts.parentPid;
  const startPpid = process.ppid;
  setInterval(() => {
    let alive = true;
    try {
      process.kill(parent, 0);
    } catch (e) {
      alive = e.code === 'EPERM';
    }
    if (!alive || (parent === startPpid && process.ppid !== startPpid)) stop(`parent ${parent} is gone`);
  }, 500).unref();
  // The interval is unref'd: the servers keep the process alive.
}

main().catch((e) => {
  log(`failed: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
