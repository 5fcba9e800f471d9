// Operations: health, metrics (metrics_allow only), the OpenAPI document.
//
// This group's rows of the route table (the router, src/api/router.cpp, joins
// every group's) and the declarations of their handlers. A new route here is
// one row, its handler, and its operation in docs/openapi.yaml.
#pragma once

#include <array>

#include "api/route.hpp"

namespace authd::handlers {

// health.cpp
Handler healthz;
Handler readyz;
Handler metrics_text;
// openapi.cpp
Handler openapi_document;

inline constexpr std::array operations_routes{
    Route{"GET", "/healthz", healthz, Access::open, std::nullopt},
    Route{"GET", "/readyz", readyz, Access::open, std::nullopt},
    Route{"GET", "/metrics", metrics_text, Access::open, std::nullopt},
    Route{"GET", "/openapi.json", openapi_document, Access::open, std::nullopt},
};

}  // namespace authd::handlers
