// bench/peers/fastify-app.js - the guarded read in Fastify 5 + fast-jwt, one
// worker per core (common.js: settings, users, roles, cluster). fast-jwt's
// verified-token cache is on (`cache: true`), as authd caches tokens it has
// verified.
'use strict';
const Fastify = require('fastify');
const { createVerifier } = require('fast-jwt');
const { ISSUER, AUDIENCE, roleHas, run } = require('./common');

run('fastify-app', (config, users) => {
  const app = Fastify({ logger: false });
  const verify = createVerifier({
    key: config.secret,
    algorithms: ['HS256'],
    allowedIss: ISSUER,
    allowedAud: AUDIENCE,
    cache: true,
  });

  // The guard: a valid token, a known user, a role with the capability.
  const guard = (capability) => async (request, reply) => {
    const header = request.headers.authorization || '';
    if (!header.startsWith('Bearer ')) return reply.code(401).send({ error: 'Access Denied' });
    let claims;
    try {
      claims = verify(header.slice(7));
    } catch {
      return reply.code(401).send({ error: 'Access Denied' });
    }
    const user = users.get(claims.sub);
    if (user === undefined) return reply.code(401).send({ error: 'Access Denied' });
    if (!roleHas(user.role, capability)) return reply.code(403).send({ error: 'Access Denied' });
    request.user = user;
  };

  app.get('/records', { onRequest: guard('read') }, async () => config.records);
  app.listen({ port: config.port, host: '127.0.0.1' });
});
