# test/ci.cmake - CTest dashboard script: configure, build and test authd.
#
#   ctest -V -S test/ci.cmake                      # build/ , RelWithDebInfo
#   ctest -V -DBUILD_DIR=build-asan -DBUILD_TYPE=Debug \
#         -DCONFIGURE_OPTIONS=-DAUTHD_SANITIZE=ON -S test/ci.cmake
#
# Variables (-DNAME=VALUE on the ctest command line, or the same name in the
# environment; the command line wins):
#   BUILD_DIR          binary directory, relative to the repository root or
#                      absolute                             (default: build)
#   BUILD_TYPE         CMAKE_BUILD_TYPE                     (default: RelWithDebInfo)
#   CONFIGURE_OPTIONS  extra cmake options, space-separated (default: none)
#   JOBS               parallel build jobs and parallel tests (default: 2)
#   EXCLUDE_LABEL      regex: tests with a matching label are left out
#                      (default: soak, the long fault tests; -DEXCLUDE_LABEL=
#                      with an empty value leaves nothing out)
#   INCLUDE_LABEL      regex: only tests with a matching label run
#                      (default: all), e.g. -DINCLUDE_LABEL=soak (make soak)
#
# Ends with a line "N passed, M failed" (", K skipped" when some were).
# Exits non-zero (FATAL_ERROR) when configuring or building fails, when a
# test fails, or when no test ran. The output of failed tests is printed;
# -V additionally shows each test as it starts and ends.
cmake_minimum_required(VERSION 3.25)

get_filename_component(CTEST_SOURCE_DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

foreach(var BUILD_DIR BUILD_TYPE CONFIGURE_OPTIONS JOBS EXCLUDE_LABEL INCLUDE_LABEL)
  if(NOT DEFINED ${var} AND DEFINED ENV{${var}})
    set(${var} "$ENV{${var}}")
  endif()
endforeach()
if(NOT BUILD_DIR)
  set(BUILD_DIR build)
endif()
if(NOT BUILD_TYPE)
  set(BUILD_TYPE RelWithDebInfo)
endif()
if(NOT JOBS)
  set(JOBS 2)
endif()
if(NOT DEFINED EXCLUDE_LABEL)
  set(EXCLUDE_LABEL soak)
endif()
set(_label_options "")
if(NOT EXCLUDE_LABEL STREQUAL "")
  list(APPEND _label_options EXCLUDE_LABEL "${EXCLUDE_LABEL}")
endif()
if(DEFINED INCLUDE_LABEL AND NOT INCLUDE_LABEL STREQUAL "")
  list(APPEND _label_options INCLUDE_LABEL "${INCLUDE_LABEL}")
endif()
get_filename_component(CTEST_BINARY_DIRECTORY "${BUILD_DIR}" ABSOLUTE BASE_DIR "${CTEST_SOURCE_DIRECTORY}")

# Reuse the generator of an existing build tree; Makefiles otherwise.
set(CTEST_CMAKE_GENERATOR "Unix Makefiles")
if(EXISTS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt")
  file(STRINGS "${CTEST_BINARY_DIRECTORY}/CMakeCache.txt" _gen REGEX "^CMAKE_GENERATOR:INTERNAL=")
  if(_gen)
    string(REGEX REPLACE "^CMAKE_GENERATOR:INTERNAL=" "" CTEST_CMAKE_GENERATOR "${_gen}")
  endif()
endif()

cmake_host_system_information(RESULT CTEST_SITE QUERY HOSTNAME)
set(CTEST_BUILD_NAME "authd-${BUILD_TYPE}")
set(CTEST_BUILD_CONFIGURATION "${BUILD_TYPE}")
set(CTEST_CONFIGURATION_TYPE "${BUILD_TYPE}")

set(_options "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
if(CONFIGURE_OPTIONS)
  separate_arguments(_extra UNIX_COMMAND "${CONFIGURE_OPTIONS}")
  list(APPEND _options ${_extra})
endif()

# Prints the last LINES lines of FILE (a CTest log) to stdout.
function(print_tail file lines)
  if(EXISTS "${file}")
    execute_process(COMMAND tail -n ${lines} "${file}")
  endif()
endfunction()

# Prints the output of test NAME as recorded in CTest's LastTest log (plain
# text; the JUnit report may hold it compressed).
function(print_test_output name)
  set(_log "${_tmp}/LastTest_${_tag}.log")
  if(NOT EXISTS "${_log}")
    return()
  endif()
  file(READ "${_log}" _text)
  string(FIND "${_text}" " Test: ${name}\nCommand:" _at)
  if(_at EQUAL -1)
    say("(no output recorded in ${_log})")
    return()
  endif()
  string(SUBSTRING "${_text}" ${_at} -1 _text)
  set(_marker "Output:\n----------------------------------------------------------\n")
  string(FIND "${_text}" "${_marker}" _begin)
  string(FIND "${_text}" "<end of output>" _end)
  if(_begin EQUAL -1 OR _end EQUAL -1)
    return()
  endif()
  string(LENGTH "${_marker}" _len)
  math(EXPR _begin "${_begin} + ${_len}")
  math(EXPR _len "${_end} - ${_begin}")
  if(_len LESS 0)
    return()
  endif()
  string(SUBSTRING "${_text}" ${_begin} ${_len} _out)
  # via a file: the output may be longer than one command-line argument
  file(WRITE "${_tmp}/failed-output.txt" "${_out}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E cat "${_tmp}/failed-output.txt")
  # Its failed checks again at the very end of the run, where a log's tail is read:
  # the harness's "FAIL ..." lines with their indented details, GoogleTest's
  # "[  FAILED  ]" lines, or else its last three lines.
  file(STRINGS "${_tmp}/failed-output.txt" _lines)
  set(_checks "")
  set(_detail FALSE)
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^FAIL |^\\[  FAILED  \\] [A-Za-z]")
      list(APPEND _checks "  ${name}: ${_line}")
      set(_detail TRUE)
    elseif(_detail AND _line MATCHES "^     ")
      list(APPEND _checks "  ${name}: ${_line}")
    else()
      set(_detail FALSE)
    endif()
  endforeach()
  if(NOT _checks)  # not the harness nor GoogleTest: the output's last lines
    list(LENGTH _lines _count)
    math(EXPR _from "${_count} - 3")
    if(_from LESS 0)
      set(_from 0)
    endif()
    list(SUBLIST _lines ${_from} 3 _checks)
    list(TRANSFORM _checks PREPEND "  ${name}: ")
  endif()
  list(SUBLIST _checks 0 12 _checks)
  set(_failed_checks ${_failed_checks} ${_checks} PARENT_SCOPE)
endfunction()

function(say text)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "${text}")
endfunction()

# ccache, when installed (scripts/deps.sh test): package.deb's dpkg-buildpackage
# compiles the same sources with the same flags as this build, in a copy of
# the tree inside it; with the paths below made relative (CCACHE_BASEDIR) and
# the working directory left out of the key (CCACHE_NOHASHDIR: debug info then
# names this build's directory) those compilations are served from this
# build's instead of taking minutes again. The cache lives in the build tree
# (debhelper points HOME elsewhere, so the user's cache would not be found).
# CMake takes CMAKE_<LANG>_COMPILER_LAUNCHER from the environment, which the
# package build inherits.
find_program(_ccache ccache)
if(_ccache)
  foreach(lang C CXX)
    if(NOT DEFINED ENV{CMAKE_${lang}_COMPILER_LAUNCHER})
      set(ENV{CMAKE_${lang}_COMPILER_LAUNCHER} "${_ccache}")
    endif()
  endforeach()
  set(ENV{CCACHE_BASEDIR} "${CTEST_SOURCE_DIRECTORY}")
  set(ENV{CCACHE_NOHASHDIR} 1)
  if(NOT DEFINED ENV{CCACHE_DIR})
    set(ENV{CCACHE_DIR} "${CTEST_BINARY_DIRECTORY}/.ccache")
  endif()
endif()

ctest_start(Experimental)
file(STRINGS "${CTEST_BINARY_DIRECTORY}/Testing/TAG" _tag LIMIT_COUNT 1)
set(_tmp "${CTEST_BINARY_DIRECTORY}/Testing/Temporary")

list(JOIN _options " " _shown)
say("== configure ${CTEST_BINARY_DIRECTORY} (${CTEST_CMAKE_GENERATOR}): ${_shown}")
ctest_configure(OPTIONS "${_options}" RETURN_VALUE _rc CAPTURE_CMAKE_ERROR _err)
if(NOT _rc EQUAL 0 OR _err EQUAL -1)
  say("---- configure log (${_tmp}/LastConfigure_${_tag}.log) ----")
  print_tail("${_tmp}/LastConfigure_${_tag}.log" 200)
  message(FATAL_ERROR "configure failed (status ${_rc})")
endif()

say("== build (${JOBS} jobs)")
string(TIMESTAMP _build_start "%s")
ctest_build(PARALLEL_LEVEL ${JOBS} RETURN_VALUE _rc NUMBER_ERRORS _nerr
            NUMBER_WARNINGS _nwarn CAPTURE_CMAKE_ERROR _err)
if(NOT _rc EQUAL 0 OR _nerr GREATER 0 OR _err EQUAL -1)
  say("---- build log, last 200 lines (${_tmp}/LastBuild_${_tag}.log) ----")
  print_tail("${_tmp}/LastBuild_${_tag}.log" 200)
  message(FATAL_ERROR "build failed (status ${_rc}, ${_nerr} errors)")
endif()

string(TIMESTAMP _now "%s")
math(EXPR _took "${_now} - ${_build_start}")
say("   the build took ${_took} s")
say("== test (${JOBS} in parallel; labels: include '${INCLUDE_LABEL}', exclude '${EXCLUDE_LABEL}')")
# A clean tree has no cost data, and ctest then starts the tests in the order
# they were added: a long one added late (package.deb, then package.install
# after it) ends the run alone while the other core idles. test/ci-costs.txt
# (scripts/ci-costs.sh, from a CI log) seeds it, so that the longest start first.
if(NOT EXISTS "${_tmp}/CTestCostData.txt" AND EXISTS "${CTEST_SOURCE_DIRECTORY}/test/ci-costs.txt")
  configure_file("${CTEST_SOURCE_DIRECTORY}/test/ci-costs.txt" "${_tmp}/CTestCostData.txt" COPYONLY)
endif()
set(_junit "${CTEST_BINARY_DIRECTORY}/Testing/junit.xml")
file(REMOVE "${_junit}")
ctest_test(PARALLEL_LEVEL ${JOBS} RETURN_VALUE _test_rc OUTPUT_JUNIT "${_junit}"
           ${_label_options} CAPTURE_CMAKE_ERROR _err)

# Count the results from the JUnit report and print the failed tests' output.
set(_passed 0)
set(_failed 0)
set(_skipped 0)
set(_failed_names "")
if(EXISTS "${_junit}")
  file(READ "${_junit}" _rest)
  while(TRUE)
    string(FIND "${_rest}" "<testcase " _start)
    if(_start EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${_rest}" ${_start} -1 _rest)
    string(FIND "${_rest}" "</testcase>" _end)
    if(_end EQUAL -1)
      string(LENGTH "${_rest}" _end)
      set(_next ${_end})
    else()
      math(EXPR _next "${_end} + 11")
    endif()
    string(SUBSTRING "${_rest}" 0 ${_end} _case)
    string(SUBSTRING "${_rest}" ${_next} -1 _rest)

    string(REGEX MATCH "name=\"([^\"]*)\"" _m "${_case}")
    set(_name "${CMAKE_MATCH_1}")
    string(REGEX MATCH "status=\"([^\"]*)\"" _m "${_case}")
    set(_status "${CMAKE_MATCH_1}")
    set(_why "")
    if(_case MATCHES "<skipped message=\"([^\"]*)\"")
      set(_why "${CMAKE_MATCH_1}")
    endif()

    if(_status STREQUAL "run")
      math(EXPR _passed "${_passed} + 1")
    elseif(_status STREQUAL "disabled" OR
           (_status STREQUAL "notrun" AND _why MATCHES "^SKIP_"))
      math(EXPR _skipped "${_skipped} + 1")
    else()
      math(EXPR _failed "${_failed} + 1")
      list(APPEND _failed_names "${_name}")
      set(_detail "${_status}")
      if(_why)
        string(APPEND _detail ": ${_why}")
      endif()
      say("---- output of failed test ${_name} (${_detail}) ----")
      print_test_output("${_name}")
      say("---- end of ${_name} ----")
    endif()
  endwhile()
endif()

math(EXPR _total "${_passed} + ${_failed}")
say("")
if(_failed_names)
  list(JOIN _failed_names ", " _list)
  say("Failed checks (the first of each failed test, or its last lines):")
  foreach(_line IN LISTS _failed_checks)
    say("${_line}")
  endforeach()
  say("Failed tests: ${_list}")
endif()
set(_summary "${_passed} passed, ${_failed} failed")
if(_skipped GREATER 0)
  string(APPEND _summary ", ${_skipped} skipped")
endif()

if(_failed GREATER 0)
  say("${_summary}")
  message(FATAL_ERROR "${_failed} test(s) failed")
elseif(_total EQUAL 0)
  say("${_summary}")
  message(FATAL_ERROR "no test ran")
elseif(NOT _test_rc EQUAL 0 OR _err EQUAL -1)
  say("${_summary}")
  message(FATAL_ERROR "ctest_test reported an error (status ${_test_rc})")
endif()
say("${_summary}")
