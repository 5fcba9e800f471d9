// authd as OpenID provider (oidc_*.cpp, well_known.cpp): discovery and keys,
// GET /authorize, POST /authorize/consent, POST /par, POST /device_authorization,
// GET|POST /device, POST /token, GET|POST /userinfo,
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
Handler jwks;
Handler openid_configuration;
// oidc_authorize.cpp
Handler oidc_authorize;
Handler oidc_consent;
// oidc_par.cpp
Handler oidc_par;
// oidc_device.cpp
Handler oidc_device_authorization;
Handler oidc_device_page;
Handler oidc_device_decision;
// oidc_token.cpp
Handler oidc_token;
// oidc_revocation.cpp
Handler oidc_revoke;
Handler oidc_introspect;
// oidc_userinfo.cpp
Handler oidc_userinfo;
// oidc_logout.cpp
Handler oidc_end_session;
// oidc_my_clients.cpp
Handler my_clients;
Handler revoke_my_client;

inline constexpr std::array oidc_routes{
    Route{"GET", "/.well-known/jwks.json", jwks, Access::open, std::nullopt},
    Route{"GET", "/.well-known/openid-configuration", openid_configuration, Access::open, std::nullopt},
    Route{"GET", "/authorize", oidc_authorize, Access::open, std::nullopt, Lane::write},
    Route{"POST", "/authorize", oidc_authorize, Access::open, std::nullopt, Lane::write, Body::form, Site::any},
    Route{"POST", "/authorize/consent", oidc_consent, Access::open, std::nullopt, Lane::write, Body::form},
    Route{"POST", "/par", oidc_par, Access::open, std::nullopt, Lane::write, Body::form},
    Route{"POST", "/device_authorization", oidc_device_authorization, Access::open, std::nullopt, Lane::write, Body::form},
    Route{"GET", "/device", oidc_device_page, Access::open, std::nullopt},
    Route{"POST", "/device", oidc_device_decision, Access::open, std::nullopt, Lane::write, Body::form},
    Route{"POST", "/token", oidc_token, Access::open, std::nullopt, Lane::write, Body::form},
    Route{"POST", "/revoke", oidc_revoke, Access::open, std::nullopt, Lane::write, Body::form},
    Route{"POST", "/introspect", oidc_introspect, Access::open, std::nullopt, Lane::direct, Body::form},
    Route{"GET", "/userinfo", oidc_userinfo, Access::open, std::nullopt},
    Route{"POST", "/userinfo", oidc_userinfo, Access::open, std::nullopt},
    Route{"GET", "/end_session", oidc_end_session, Access::open, std::nullopt, Lane::write},
    Route{"GET", "/me/clients", my_clients, Access::session, std::nullopt},
    Route{"DELETE", "/me/clients/{id}", revoke_my_client, Access::session, std::nullopt, Lane::write},
};

}  // namespace authd::handlers
