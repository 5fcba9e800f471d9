# AUTHD_RELOCATABLE=ON (make dist, scripts/dist.sh): binaries a user can copy
# to a shared host that has none of the -dev packages nor these libraries.
#  - libargon2, LMDB, jansson and libxcrypt (hosts differ:
#    libcrypt.so.1 or .so.2), which a typical host lacks,
#    are linked from their static archives (Debian's -dev packages ship them);
#  - libstdc++ is linked statically too: the host's may be older than
#    g++ 12's (GLIBCXX_3.4.30). libgcc stays dynamic (libgcc_s.so.1 is on every
#    glibc system): Debian 12's static unwinder needs glibc 2.35
#    (_dl_find_object), and src/compat/arc4random.cpp stands in for the one
#    glibc 2.36 function the static libstdc++ refers to, so that the release
#    runs on glibc 2.34 (RHEL/AlmaLinux/CloudLinux 9, Ubuntu 22.04);
#  - libcbor and libqrencode (the second factor) have no static archives in
#    Debian: scripts/dist.sh ships them in the release's lib/, and install.sh
#    copies them into STATE/lib, beside both installed programs
#    (STATE/authd.fcgi, STATE/authctl), outside every document root. The one
#    search path is RUNPATH $ORIGIN/lib: never a directory of the document
#    root, which another site's upload bug could fill with a library of its
#    own (the document root holds only a two-line script that execs
#    STATE/authd.fcgi);
#  - what stays dynamic (glibc, OpenSSL 3, libcurl 4) is what hosts have; the
#    release notes (packaging/hosting/RELEASE-NOTES.md), checked by
#    scripts/dist.sh and test/hosting, keep that list honest.
# Included from the top CMakeLists.txt after the pkg_check_modules calls: it
# re-points their imported targets at the archives.

foreach(pair ARGON2:argon2 LMDB:lmdb JANSSON:jansson CRYPT:crypt)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 target)
  list(GET pair 1 name)
  find_library(AUTHD_STATIC_${target} NAMES lib${name}.a
               HINTS ${${target}_LIBRARY_DIRS} ${${target}_STATIC_LIBRARY_DIRS} REQUIRED NO_CACHE)
  set_property(TARGET PkgConfig::${target} PROPERTY INTERFACE_LINK_LIBRARIES ${AUTHD_STATIC_${target}} Threads::Threads)
  message(STATUS "relocatable: ${name} from ${AUTHD_STATIC_${target}}")
endforeach()

add_link_options(-static-libstdc++)

# The programs are defined later (src/): add the stand-in once they exist.
function(authd_relocatable_programs)
  foreach(program authd authctl)
    target_sources(${program} PRIVATE ${PROJECT_SOURCE_DIR}/src/compat/arc4random.cpp)
    # The install RUNPATH at build time too: a build RUNPATH gets padded with
    # ':' for a later install, and an empty entry means the current directory
    # (for a CGI program: the document root).
    set_target_properties(${program} PROPERTIES
      INSTALL_RPATH "\$ORIGIN/lib"
      BUILD_WITH_INSTALL_RPATH ON)
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL authd_relocatable_programs)
