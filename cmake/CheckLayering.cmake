# cmake -DROOT=<source dir> -P cmake/CheckLayering.cmake  (CTest unit.layering)
#
# lib/'s layers (lib/CMakeLists.txt): the foundations (lib/foundation/) include
# no authd header but their own, and no module includes the composition root
# (authd/core.hpp, lib/core/). The targets' include paths refuse such an
# include already; this names the offending line, and also catches one
# written as a path ("../core/...").
cmake_minimum_required(VERSION 3.25)

file(GLOB foundation_headers RELATIVE ${ROOT}/lib/foundation/include ${ROOT}/lib/foundation/include/authd/*.hpp)
file(GLOB_RECURSE foundation_sources ${ROOT}/lib/foundation/*.cpp ${ROOT}/lib/foundation/*.hpp)
file(GLOB_RECURSE module_sources ${ROOT}/lib/*.cpp ${ROOT}/lib/*.hpp)
list(FILTER module_sources EXCLUDE REGEX "^${ROOT}/lib/(core|foundation)/")

set(offences "")
foreach(file IN LISTS foundation_sources)
  file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" header "${line}")
    if(NOT header IN_LIST foundation_headers)
      string(APPEND offences "  ${file}: ${line} (a foundation includes only foundation headers)\n")
    endif()
  endforeach()
endforeach()
foreach(file IN LISTS module_sources)
  file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*/)?core\\.hpp\"")
  foreach(line IN LISTS includes)
    string(APPEND offences "  ${file}: ${line} (a module never includes the composition root)\n")
  endforeach()
endforeach()

list(LENGTH foundation_sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources under ${ROOT}/lib/foundation: wrong ROOT?")
endif()
if(offences)
  message(FATAL_ERROR "includes that run up lib/'s layers:\n${offences}")
endif()
message(STATUS "lib/ layering: ${count} foundation files, no include runs up")
