// authd as OpenID provider (oidc_*.cpp, well_known.cpp): discovery and keys,
// GET /authorize, POST /authorize/consent, POST /token, GET|POST /userinfo,
// POST /revoke, POST /introspect, GET /end_session, and the user's consents
// (GET /me/clients, DELETE /me/clients/{id}).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// well_known.cpp
HandlerResult jwks(App& app, const http::Request& request, const RouteContext& context);
HandlerResult openid_configuration(App& app, const http::Request& request, const RouteContext& context);
// oidc_authorize.cpp
HandlerResult oidc_authorize(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oidc_consent(App& app, const http::Request& request, const RouteContext& context);
// oidc_token.cpp
HandlerResult oidc_token(App& app, const http::Request& request, const RouteContext& context);
// oidc_revocation.cpp
HandlerResult oidc_revoke(App& app, const http::Request& request, const RouteContext& context);
HandlerResult oidc_introspect(App& app, const http::Request& request, const RouteContext& context);
// oidc_userinfo.cpp
HandlerResult oidc_userinfo(App& app, const http::Request& request, const RouteContext& context);
// oidc_logout.cpp
HandlerResult oidc_end_session(App& app, const http::Request& request, const RouteContext& context);
// oidc_my_clients.cpp
HandlerResult my_clients(App& app, const http::Request& request, const RouteContext& context);
HandlerResult revoke_my_client(App& app, const http::Request& request, const RouteContext& context);

inline constexpr std::array oidc_routes{
    Route{"GET", "/.well-known/jwks.json", jwks, Access::open, std::nullopt},
    Route{"GET", "/.well-known/openid-configuration", openid_configuration, Access::open, std::nullopt},
    Route{"GET", "/authorize", oidc_authorize, Access::open, std::nullopt},
    Route{"POST", "/authorize/consent", oidc_consent, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"POST", "/token", oidc_token, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"POST", "/revoke", oidc_revoke, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"POST", "/introspect", oidc_introspect, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"GET", "/userinfo", oidc_userinfo, Access::open, std::nullopt},
    Route{"POST", "/userinfo", oidc_userinfo, Access::open, std::nullopt},
    Route{"GET", "/end_session", oidc_end_session, Access::open, std::nullopt},
    Route{"GET", "/me/clients", my_clients, Access::session, std::nullopt},
    Route{"DELETE", "/me/clients/{id}", revoke_my_client, Access::session, std::nullopt},
};

}  // namespace authd::handlers
