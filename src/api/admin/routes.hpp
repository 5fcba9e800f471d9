// User, client and invitation administration (role admin), and the invitee's
// sign-up (POST /signup/invitation).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// invitations.cpp
Handler accept_invitation;
Handler admin_list_invitations;
Handler admin_create_invitation;
Handler admin_revoke_invitation;
// admin_users.cpp
Handler admin_list_users;
Handler admin_get_user;
Handler admin_set_role;
Handler admin_delete_user;
Handler admin_sign_out_user;
// admin_clients.cpp
Handler admin_list_clients;
Handler admin_add_client;
Handler admin_get_client;
Handler admin_remove_client;
Handler admin_rotate_client_secret;

inline constexpr std::array admin_routes{
    Route{"POST", "/signup/invitation", accept_invitation, Access::open, std::nullopt, Lane::password, Body::json},
    Route{"GET", "/admin/users", admin_list_users, Access::admin, std::nullopt},
    Route{"GET", "/admin/users/{id}", admin_get_user, Access::admin, std::nullopt},
    Route{"PUT", "/admin/users/{id}", admin_set_role, Access::admin, std::nullopt, Lane::write, Body::json},
    Route{"DELETE", "/admin/users/{id}", admin_delete_user, Access::admin, std::nullopt, Lane::write},
    Route{"POST", "/admin/users/{id}/signout", admin_sign_out_user, Access::admin, std::nullopt, Lane::write},
    Route{"GET", "/admin/clients", admin_list_clients, Access::admin, std::nullopt},
    Route{"POST", "/admin/clients", admin_add_client, Access::admin, std::nullopt, Lane::write, Body::json},
    Route{"GET", "/admin/clients/{id}", admin_get_client, Access::admin, std::nullopt},
    Route{"DELETE", "/admin/clients/{id}", admin_remove_client, Access::admin, std::nullopt, Lane::write},
    Route{"POST", "/admin/clients/{id}/secret", admin_rotate_client_secret, Access::admin, std::nullopt, Lane::write},
    Route{"GET", "/admin/invitations", admin_list_invitations, Access::admin, std::nullopt},
    Route{"POST", "/admin/invitations", admin_create_invitation, Access::admin, std::nullopt, Lane::write, Body::json},
    Route{"DELETE", "/admin/invitations/{id}", admin_revoke_invitation, Access::admin, std::nullopt, Lane::write},
};

}  // namespace authd::handlers
