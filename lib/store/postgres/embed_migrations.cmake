# cmake -DOUTPUT=file.cpp -DMIGRATIONS="a.sql|b.sql" -P embed_migrations.cmake
# Writes the C++ source that holds every migration's SQL text (see
# migrations.hpp). Files are named NNN_name.sql; NNN is the version.
string(REPLACE "|" ";" MIGRATIONS "${MIGRATIONS}")
set(body "")
set(entries "")
list(SORT MIGRATIONS)
set(index 0)
foreach(file IN LISTS MIGRATIONS)
  get_filename_component(name ${file} NAME)
  if(NOT name MATCHES "^([0-9][0-9][0-9])_[a-z0-9_]+\\.sql$")
    message(FATAL_ERROR "migration file name must be NNN_name.sql: ${name}")
  endif()
  math(EXPR version "${CMAKE_MATCH_1}")  # drops leading zeros
  file(READ ${file} sql)
  string(FIND "${sql}" ")authd_sql\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )authd_sql\"")
  endif()
  string(APPEND body "constexpr char kSql${index}[] = R\"authd_sql(${sql})authd_sql\";\n")
  string(APPEND entries "    {${version}, \"${name}\", kSql${index}},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE ${OUTPUT}.tmp "// Generated from lib/store/postgres/migrations/*.sql by embed_migrations.cmake.
#include \"migrations.hpp\"

namespace authd::pg {
namespace {
${body}
constexpr Migration kMigrations[] = {
${entries}};
}  // namespace

std::span<const Migration> migrations() { return kMigrations; }

}  // namespace authd::pg
")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
