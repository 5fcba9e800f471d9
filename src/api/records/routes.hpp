// The records API (bearer token with the route's capability).
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// records.cpp
Handler list_records;
Handler create_record;
Handler get_record;
Handler update_record;
Handler delete_record;

inline constexpr std::array records_routes{
    Route{"GET", "/records", list_records, Access::bearer, std::nullopt, Lane::read},
    Route{"POST", "/records", create_record, Access::bearer, Capability::create, Lane::write, Body::json},
    Route{"GET", "/records/{id}", get_record, Access::bearer, Capability::read, Lane::read},
    Route{"PUT", "/records/{id}", update_record, Access::bearer, Capability::update, Lane::write, Body::json},
    Route{"DELETE", "/records/{id}", delete_record, Access::bearer, Capability::delete_, Lane::write},
};

}  // namespace authd::handlers
