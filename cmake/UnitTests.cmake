# How the GoogleTest executables of test/unit and test/src become CTest tests.
#
# AUTHD_UNIT_TEST_CASES=ON (the default): one CTest test per test case
# (gtest_discover_tests), so that a failure names its case and CTest runs the
# cases in parallel. OFF: one CTest test per executable, running all of its
# cases in one process (GoogleTest's output names a failed case): make
# test-asan sets it, where starting a sanitizer-instrumented executable once per
# case cost more than the cases (769 starts; the same cases, every one, run).
option(AUTHD_UNIT_TEST_CASES "One CTest test per GoogleTest case (OFF: one per executable)" ON)
include(GoogleTest)

# authd_unit_tests_of(TARGET [PREFIX P] [PROPERTIES NAME VALUE ...]): registers
# TARGET's cases under the label "unit", each with the given test properties.
# PREFIX starts the name of each case (none by default) and of the executable's
# one test (unit. by default).
function(authd_unit_tests_of target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX" "PROPERTIES")
  if(AUTHD_UNIT_TEST_CASES)
    gtest_discover_tests(${target} TEST_PREFIX "${arg_PREFIX}"
                         PROPERTIES LABELS unit ${arg_PROPERTIES} DISCOVERY_TIMEOUT 60)
  else()
    if(NOT arg_PREFIX)
      set(arg_PREFIX unit.)
    endif()
    add_test(NAME ${arg_PREFIX}${target} COMMAND ${target})
    set_tests_properties(${arg_PREFIX}${target} PROPERTIES LABELS unit ${arg_PROPERTIES} TIMEOUT 900)
  endif()
endfunction()
