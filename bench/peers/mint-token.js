// bench/peers/mint-token.js - prints an HS256 token for the peers' user 0
// (benchuser), signed with PEER_SECRET, valid for an hour.
'use strict';
const jwt = require('jsonwebtoken');
const crypto = require('node:crypto');
const { ISSUER, AUDIENCE, userId } = require('./common');

const secret = process.env.PEER_SECRET || '';
if (secret.length < 16) {
  console.error('mint-token: PEER_SECRET must hold at least 16 characters');
  process.exit(1);
}
const token = jwt.sign({ name: 'benchuser', jti: crypto.randomBytes(16).toString('base64url') }, secret, {
  algorithm: 'HS256', issuer: ISSUER, audience: AUDIENCE, subject: userId(0), expiresIn: 3600,
});
console.log(token);
