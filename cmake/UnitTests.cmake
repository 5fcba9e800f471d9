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

# authd_unit_tests_of(TARGET): registers TARGET's cases under the label "unit".
function(authd_unit_tests_of target)
  if(AUTHD_UNIT_TEST_CASES)
    gtest_discover_tests(${target} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
  else()
    add_test(NAME unit.${target} COMMAND ${target})
    set_tests_properties(unit.${target} PROPERTIES LABELS unit TIMEOUT 900)
  endif()
endfunction()
