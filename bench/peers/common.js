// bench/peers/common.js - what the two peer apps share: the settings (from
// the environment), the in-memory users and roles, and the Node cluster.
//
// The peers answer the benchmark's guarded read the way authd does: verify the
// HS256 bearer token (iss, aud, exp), look its subject up among the users,
// check that the user's role has the `read` capability, answer the records as
// JSON. 401 for a missing or bad token or an unknown user, 403 for a role
// without `read`.
//
//   PEER_PORT      TCP port on 127.0.0.1 (required)
//   PEER_SECRET    the HMAC key of the HS256 tokens (required; mint-token.js
//                  signs with the same)
//   PEER_WORKERS   cluster workers (default: one per core)
//   PEER_USERS     users held in memory (default 1000); user 0 is `benchuser`
//   PEER_BODY      the records, as JSON (default: one small record); the
//                  benchmark passes authd's own answer to GET /records
'use strict';
const cluster = require('node:cluster');
const os = require('node:os');

const ISSUER = 'authd';
const AUDIENCE = 'authd';

// Role -> capabilities, as authd's lib/foundation/roles.cpp.
const CAPABILITIES = {
  admin: new Set(['read', 'create', 'update', 'delete']),
  editor: new Set(['read', 'create', 'update']),
  writer: new Set(['read', 'create']),
  user: new Set(['read']),
};

function roleHas(role, capability) {
  const set = CAPABILITIES[role];
  return set !== undefined && set.has(capability);
}

// A user id as authd makes them: 24 hex characters.
function userId(index) {
  return index.toString(16).padStart(24, '0');
}

function settings() {
  const port = Number(process.env.PEER_PORT);
  const secret = process.env.PEER_SECRET || '';
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error('PEER_PORT must be a TCP port');
  if (secret.length < 16) throw new Error('PEER_SECRET must hold at least 16 characters');
  const workers = Number(process.env.PEER_WORKERS || 0) || os.availableParallelism();
  const count = Number(process.env.PEER_USERS || 1000);
  const records = JSON.parse(process.env.PEER_BODY || '[{"_id":"0","title":"benchmark record","body":"a small record"}]');
  return { port, secret, workers, count, records };
}

// id -> { username, role }: user 0 is benchuser (role user), every tenth an
// admin, the rest users.
function makeUsers(count) {
  const users = new Map();
  users.set(userId(0), { username: 'benchuser', role: 'user' });
  for (let i = 1; i < count; ++i) users.set(userId(i), { username: `user${i}`, role: i % 10 === 0 ? 'admin' : 'user' });
  return users;
}

// The primary forks the workers (and replaces one that dies); each worker
// runs start(config, users) and listens on the shared port.
function run(name, start) {
  const config = settings();
  if (cluster.isPrimary) {
    for (let i = 0; i < config.workers; ++i) cluster.fork();
    let stopping = false;
    const stop = () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers)) worker.kill('SIGTERM');
      setTimeout(() => process.exit(0), 2000).unref();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    cluster.on('exit', () => {
      if (!stopping) cluster.fork();
      else if (Object.keys(cluster.workers).length === 0) process.exit(0);
    });
    console.error(`${name}: ${config.workers} workers on 127.0.0.1:${config.port}`);
    return;
  }
  start(config, makeUsers(config.count));
}

module.exports = { ISSUER, AUDIENCE, roleHas, userId, run };
