#!/usr/bin/env bash
# OpenID Connect clients (docs/openid-provider.md): `authctl client add|list|show|
# remove|rotate-secret` and the admin API /admin/clients on a running server.
# A confidential client's secret is printed once and never again (not by show,
# list or the API, not in the audit log); rotate-secret gives a new one; bad
# redirect URIs (http to a non-loopback host, fragments, none at all) and
# unknown scopes are refused with a non-zero exit / 400 naming the field (attack:
# http://127.attacker.example/cb passed as loopback; only literal 127.0.0.0/8,
# [::1] and localhost are, RFC 8252 §7.3, §8.3); only
# admins reach the API, and a cookie-authenticated change from another site is
# refused (CSRF).
source "$(dirname "$0")/harness.sh"
AUDIT_DIR=$(mktemp -d)
at_exit rm -rf "$AUDIT_DIR"
export AUTHD_AUDIT_LOG=$AUDIT_DIR/audit.log
stack_start

step "authctl client add / show / list"
OUT=$(authctl client add Wiki --redirect-uri https://wiki.example.org/cb https://wiki.example.org/cb2 \
  --post-logout-uri https://wiki.example.org/ --scope openid profile roles 2>/dev/null)
expect_eq "client add: exit 0" 0 "$?"
ID=$(sed -n 's/^client_id: //p' <<<"$OUT")
SECRET=$(sed -n 's/^client_secret: //p' <<<"$OUT")
expect_match "client add prints a client_id" '^client_[0-9a-f]{24}$' "$ID"
expect_match "client add prints a secret" '^[A-Za-z0-9_-]{40,}$' "$SECRET"
expect_match "two redirect URIs" 'cb https://wiki.example.org/cb2$' "$(grep '^redirect_uris:' <<<"$OUT")"
SHOWN=$(authctl client show "$ID" 2>&1)
expect_match "show names the client" 'name: Wiki' "$SHOWN"
expect_match "show has the scopes" 'scopes: openid profile roles' "$SHOWN"
expect_eq "show never prints the secret" no "$(yesno grep -qF "$SECRET" <<<"$SHOWN")"
expect_match "list shows it" "$ID +confidential +Wiki" "$(authctl client list 2>&1)"
OUT=$(authctl client add App --public --first-party --redirect-uri http://127.0.0.1:9/cb 2>/dev/null)
expect_eq "public client: exit 0" 0 "$?"
PUB=$(sed -n 's/^client_id: //p' <<<"$OUT")
expect_eq "public client: no secret" "" "$(sed -n 's/^client_secret: //p' <<<"$OUT")"
expect_match "public first-party" 'type: public first-party' "$OUT"

step "authctl refusals"
# Loopback means loopback (RFC 8252 §7.3, §8.3): a name that starts with 127. is anyone's host.
for bad in "--redirect-uri http://wiki.example.org/cb" "--redirect-uri https://a.example/cb#x" "" \
           "--redirect-uri http://127.attacker.example/cb" "--redirect-uri http://127.0.0.1.nip.io/cb" \
           "--redirect-uri https://a.example/cb --post-logout-uri http://127.attacker.example/bye" \
           "--redirect-uri https://a.example/cb --scope openid admin" "--redirect-uri https://a.example/cb --bogus" \
           "--grant client_credentials" "--grant client_credentials --role root" "--grant client_credentials --role user --public" \
           "--redirect-uri https://a.example/cb --role user" "--grant client_credentials --role user --jwks /nonexistent" \
           "--grant client_credentials --role user --jwks-uri http://keys.example/jwks"; do
  # shellcheck disable=SC2086  # the words are the arguments
  authctl client add Bad $bad >/dev/null 2>&1
  expect_ne "client add Bad $bad: refused" 0 "$?"
done
expect_eq "refusals added nothing" 2 "$(authctl client list 2>/dev/null | tail -n +2 | wc -l)"
authctl client show client_000000000000000000000000 >/dev/null 2>&1
expect_eq "show unknown: exit 1" 1 "$?"
authctl client rotate-secret "$PUB" >/dev/null 2>&1
expect_eq "rotate-secret of a public client: exit 1" 1 "$?"

step "client update: the back-channel logout URI"
authctl client update "$ID" --backchannel-logout-uri http://wiki.example.org/logout >/dev/null 2>&1
expect_eq "a logout URI in clear to another host: exit 1" 1 "$?"
authctl client update "$ID" >/dev/null 2>&1
expect_eq "update without --backchannel-logout-uri: usage, exit 2" 2 "$?"
OUT=$(authctl client update "$ID" --backchannel-logout-uri https://wiki.example.org/logout --backchannel-logout-session-required 2>&1)
expect_match "set, session required" 'backchannel_logout_uri: https://wiki.example.org/logout \(session required\)' "$OUT"
expect_eq "--json shows it" "https://wiki.example.org/logout true" \
  "$(authctl --json client show "$ID" 2>/dev/null | jq -r '"\(.backchannel_logout_uri) \(.backchannel_logout_session_required)"')"
authctl client update "$ID" --backchannel-logout-uri "" >/dev/null 2>&1
expect_eq "removed again" "" "$(authctl client show "$ID" 2>/dev/null | grep backchannel)"

step "rotate-secret"
NEW=$(authctl client rotate-secret "$ID" 2>/dev/null | sed -n 's/^client_secret: //p')
expect_match "a new secret" '^[A-Za-z0-9_-]{40,}$' "$NEW"
expect_ne "it differs" "$SECRET" "$NEW"

step "admin API"
printf '%s' 'root password' | authctl add root admin >/dev/null
printf '%s' 'ursula password' | authctl add ursula user >/dev/null
http POST /signin -u 'root:root password'; ROOT=$(json .token)
http POST /signin -u 'ursula:ursula password'; USER_TOKEN=$(json .token)
JSON=(-H 'Content-Type: application/json')
http GET /admin/clients
expect_status 401 "no token"
http GET /admin/clients -H "Authorization: Bearer $USER_TOKEN"
expect_status 403 "a user"
http POST /admin/clients -H "Authorization: Bearer $USER_TOKEN" "${JSON[@]}" \
  --data-binary '{"name":"X","redirect_uris":["https://x.example/cb"]}'
expect_status 403 "a user cannot add"
http GET /admin/clients -H "Authorization: Bearer $ROOT"
expect_status 200 "admin lists"
expect_json "two clients" '.clients | length' 2
expect_eq "no secret hash in the list" no "$(yesno grep -qE '"(secret_hmac|secret_sha256|client_secret)"' <<<"$BODY")"
expect_json "the auth method is shown, not the secret" '[.clients[].token_endpoint_auth_method] | unique | join(" ")' "client_secret_basic none"
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" \
  --data-binary '{"name":"Forum","redirect_uris":["https://forum.example/oidc"],"scopes":["openid","email","offline_access"]}'
expect_status 201 "admin adds"
API_ID=$(json .client_id)
expect_match "with a secret" '^[A-Za-z0-9_-]{40,}$' "$(json .client_secret)"
expect_json "confidential" .public false
http GET "/admin/clients/$API_ID" -H "Authorization: Bearer $ROOT"
expect_status 200 "admin shows"
expect_json "shown without a secret" '.client_secret // "none"' none
expect_json "scopes" '.scopes | join(" ")' "openid email offline_access"
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" \
  --data-binary '{"name":"X","redirect_uris":["http://x.example/cb"]}'
expect_status 400 "http to another host"
expect_match "names the field" '^redirect_uri ' "$(json .error)"
for uri in http://127.attacker.example/cb http://127.1/cb http://127.0.0.1.example/cb; do
  http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary "{\"name\":\"X\",\"redirect_uris\":[\"$uri\"]}"
  expect_status 400 "$uri is no loopback address: https required"
  expect_match "names the field" '^redirect_uri must use https' "$(json .error)"
done
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" \
  --data-binary '{"name":"X","redirect_uris":["https://x.example/cb"],"post_logout_redirect_uris":["http://127.attacker.example/"]}'
expect_status 400 "a post-logout URI on a 127.* name"
expect_match "names the field" '^post_logout_redirect_uri ' "$(json .error)"
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary '{"name":"X","redirect_uris":["http://127.8.9.10:8080/cb"]}'
expect_status 201 "a literal 127.0.0.0/8 address is loopback"
http DELETE "/admin/clients/$(json .client_id)" -H "Authorization: Bearer $ROOT"
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary '{"name":"X","redirect_uris":"https://x.example/cb"}'
expect_status 400 "redirect_uris not an array"
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" \
  --data-binary '{"name":"X","redirect_uris":["https://x.example/cb"],"backchannel_logout_uri":"http://x.example/logout"}'
expect_status 400 "a back-channel logout URI in clear to another host"
expect_match "names the field" '^backchannel_logout_uri must use https' "$(json .error)"
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" \
  --data-binary '{"name":"X","redirect_uris":["https://x.example/cb"],"backchannel_logout_uri":"https://x.example/logout","backchannel_logout_session_required":true}'
expect_status 201 "a client with a back-channel logout URI"
expect_json "its logout URI, session required" '"\(.backchannel_logout_uri) \(.backchannel_logout_session_required)"' \
  "https://x.example/logout true"
http DELETE "/admin/clients/$(json .client_id)" -H "Authorization: Bearer $ROOT"
# Service clients and private_key_jwt through the admin API (docs/openid-provider.md).
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" \
  --data-binary '{"name":"Job","grant_types":["client_credentials"],"role":"editor"}'
expect_status 201 "admin adds a service client (no redirect URI)"
expect_eq "its grant, role, auth method and a secret" "client_credentials editor client_secret_basic yes" \
  "$(json '"\(.grant_types | join(" ")) \(.role) \(.token_endpoint_auth_method) \(.client_secret | length > 40 | if . then "yes" else "no" end)"')"
http DELETE "/admin/clients/$(json .client_id)" -H "Authorization: Bearer $ROOT"
for bad in '{"name":"X","grant_types":["client_credentials"]}:role' \
           '{"name":"X","grant_types":["client_credentials"],"role":"root"}:role' \
           '{"name":"X","grant_types":["client_credentials"],"role":"user","public":true}:grant_types' \
           '{"name":"X","grant_types":["password"],"role":"user"}:grant_types' \
           '{"name":"X","redirect_uris":["https://x.example/cb"],"role":"admin"}:role' \
           '{"name":"X","redirect_uris":["https://x.example/cb"],"jwks":{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}}:jwks' \
           '{"name":"X","redirect_uris":["https://x.example/cb"],"jwks_uri":"http://keys.example/jwks"}:jwks_uri'; do
  http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary "${bad%:*}"
  expect_status 400 "refused: ${bad%:*}"
  expect_match "names the field ${bad##*:}" "^${bad##*:}[ :]" "$(json .error)"
done
http POST /admin/clients -H "Authorization: Bearer $ROOT" "${JSON[@]}" --data-binary \
  '{"name":"Signer","grant_types":["client_credentials"],"role":"user","jwks_uri":"https://keys.example/jwks.json"}'
expect_status 201 "a private_key_jwt client"
expect_eq "no secret, its jwks_uri" "private_key_jwt none https://keys.example/jwks.json" \
  "$(json '"\(.token_endpoint_auth_method) \(.client_secret // "none") \(.jwks_uri)"')"
SIGNER=$(json .client_id)
http POST "/admin/clients/$SIGNER/secret" -H "Authorization: Bearer $ROOT"
expect_status 400 "no secret to rotate for a private_key_jwt client"
http DELETE "/admin/clients/$SIGNER" -H "Authorization: Bearer $ROOT"
http POST "/admin/clients/$API_ID/secret" -H "Authorization: Bearer $ROOT"
expect_status 200 "admin rotates the secret"
ROTATED=$(json .client_secret)
http POST /admin/clients --cookie "auth=$ROOT" "${JSON[@]}" -H 'Origin: https://evil.example' -H 'Sec-Fetch-Site: cross-site' \
  --data-binary '{"name":"CSRF","redirect_uris":["https://evil.example/cb"]}'
expect_status 403 "a cross-site cookie post is refused"
http DELETE "/admin/clients/$API_ID" -H "Authorization: Bearer $ROOT"
expect_status 200 "admin removes"
http GET "/admin/clients/$API_ID" -H "Authorization: Bearer $ROOT"
expect_status 404 "then it is gone"
authctl client remove "$ID" >/dev/null 2>&1
expect_eq "authctl client remove" 0 "$?"
expect_eq "one client left" 1 "$(authctl client list 2>/dev/null | tail -n +2 | wc -l)"

step "audit, and no secret in any log"
for event in client_added client_secret_rotated client_removed; do
  expect_eq "audited: $event" yes "$(yesno grep -q "\"$event\"" "$AUTHD_AUDIT_LOG")"
done
for s in "$SECRET" "$NEW" "$ROTATED"; do
  expect_eq "secret ${s:0:6}... in no log" no "$(yesno grep -rqF "$s" "$AUTHD_AUDIT_LOG" "$STATE_DIR"/*.log)"
done
finish
