# Precompiled standard headers for the targets with many sources.
#
# Parsing the standard library is about a third of a source's compile time
# here (2.3 s of sign_in.cpp's 7 s; GoogleTest adds a second to a test), once
# per source. Each listed target gets its own precompiled header (its flags
# differ: -fPIC, the tests' -g0 -O1), built once per target.
#
# The headers are forced into every source of the target, so a missing
# #include <vector> would go unnoticed: configure with
# -DAUTHD_PRECOMPILED_HEADERS=OFF to check that every source still includes
# what it uses (make fuzz builds without them).
option(AUTHD_PRECOMPILED_HEADERS "Precompile the standard headers of the larger targets" ON)

# authd_precompile_headers(TARGET [EXTRA_HEADER...]): the standard headers of
# cmake/precompiled/standard.hpp, and the extra ones (<gtest/gtest.h> for a
# test executable).
function(authd_precompile_headers target)
  if(AUTHD_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/precompiled/standard.hpp ${ARGN})
    # From a precompiled header, GCC 12 no longer treats libstdc++'s code
    # inlined into ours as a system header's, and reports the -O2 false
    # positives of its object-size warnings there (moving a std::string
    # "copies its short form out of bounds", GCC PR 105651; Linux turned
    # these off for GCC 12). Off for these targets under GCC; clang (make
    # fuzz) keeps its own.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overread
                                               -Wno-stringop-overflow -Wno-restrict)
    endif()
  endif()
endfunction()
