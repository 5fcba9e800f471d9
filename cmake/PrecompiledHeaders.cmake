# Precompiled standard headers for the targets with many sources
# (-DAUTHD_PRECOMPILED_HEADERS=ON; make test-asan builds with them), and the
# GoogleTest executables' faster build (authd_test_build, always).
#
# Parsing the standard library is a good part of a source's compile time
# here (2.3 s of sign_in.cpp; GoogleTest adds a second to a test), once per
# source: with them the sanitizer build takes 5.3 -> 3.8 s a source. Each
# listed target gets its own precompiled header (its flags differ: -fPIC, the
# tests' -g0 -O1), built once per target.
#
# Off by default: ccache cannot serve a compilation that uses one, and CI's
# package and shared-hosting builds (package.deb, hosting.dist) are served
# from the main build's ccache objects (test/ci.cmake); with them they
# compiled everything again, longer than they saved. And the headers are
# forced into every source of the target, so a missing #include <vector>
# would go unnoticed there.
option(AUTHD_PRECOMPILED_HEADERS "Precompile the standard headers of the larger targets" OFF)

# authd_precompile_headers(TARGET [EXTRA_HEADER...]): the standard headers of
# cmake/precompiled/standard.hpp, and the extra ones (<gtest/gtest.h> for a
# test executable), when AUTHD_PRECOMPILED_HEADERS is on.
function(authd_precompile_headers target)
  if(AUTHD_PRECOMPILED_HEADERS)
    _authd_precompile(${target} ${ARGN})
  endif()
endfunction()

# authd_test_build(TARGET): a GoogleTest executable is built with the standard
# headers and <gtest/gtest.h> precompiled, whatever the option above says: its
# sources spend most of their time parsing those (GoogleTest alone a second a
# file). Neither the package nor the shared-hosting build compiles the tests,
# so the ccache objects those builds reuse are not concerned.
function(authd_test_build target)
  _authd_precompile(${target} <gtest/gtest.h>)
endfunction()

function(_authd_precompile target)
  target_precompile_headers(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/precompiled/standard.hpp ${ARGN})
  # From a precompiled header, GCC 12 no longer treats libstdc++'s code
  # inlined into ours as a system header's, and reports the -O2 false
  # positives of its object-size warnings there (moving a std::string
  # "copies its short form out of bounds", GCC PR 105651; Linux turned
  # these off for GCC 12). Off for these targets under GCC; clang keeps
  # its own.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overread
                                             -Wno-stringop-overflow -Wno-restrict)
  endif()
endfunction()
