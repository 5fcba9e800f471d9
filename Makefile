# Thin wrapper over CMake/CTest. Each target first makes sure the Debian
# packages it needs are installed (scripts/deps.sh; a no-op when they are).
#
#   make            install build deps, configure and build in build/
#   make run        + lighttpd/spawn-fcgi, build, serve on http://127.0.0.1:$(PORT)
#   make test       + test deps; configure, build and run every test (CTest script)
#   make test-asan  unit + lighttpd black-box tests + fuzz targets in build-asan/ (clang-19, ASan+UBSan, Debug)
#   make soak       + the long fault tests (CTest label soak; `make test` skips them)
#   make deb        the Debian package (scripts/build-deb.sh, debian/):
#                   $(DEB_DIR)/authd_<version>_<arch>.deb, checked by lintian
#   make dist       the relocatable release for shared hosting (scripts/dist.sh):
#                   $(DIST_DIR)/authd-<version>-linux-<arch>.tar.gz
#   make settings-docs  regenerate conf/authd.conf and the settings reference of
#                   docs/configuration.md and man/authd.conf.5 from the settings tables
#   make front-routes  regenerate the front servers' API path prefixes (conf/,
#                   debian/, packaging/, docs/apache.md) from the route table
#   make clean      remove the build trees
#
# Variables: BUILD_DIR (build), BUILD_TYPE (RelWithDebInfo), JOBS (the number of cores), PORT (8080),
# TEST_EXCLUDE (soak),
# DIST_DIR (build-dist), DEB_DIR (build-deb).

BUILD_DIR  ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
PORT       ?= 8080

DEPS  := scripts/deps.sh
CTEST ?= ctest

.PHONY: all build configure run test test-asan clean deps settings-docs front-routes

all: build

deps:
	@$(DEPS) build

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

run:
	@$(DEPS) run
	@$(MAKE) --no-print-directory build
	PORT=$(PORT) BUILD_DIR=$(BUILD_DIR) scripts/serve.sh

# TEST_EXCLUDE: labels (a regex) left out, soak by default. UNIT_TESTS=OFF
# leaves the GoogleTest executables out of the build (-DAUTHD_UNIT_TESTS).
# .ci/run leaves out the lighttpd black-box scripts and the unit tests, which
# its test-asan stage runs.
TEST_EXCLUDE ?= soak
UNIT_TESTS   ?= ON
test:
	@$(DEPS) test
	$(CTEST) -V -S test/ci.cmake -DBUILD_DIR=$(BUILD_DIR) -DBUILD_TYPE=$(BUILD_TYPE) -DJOBS=$(JOBS) \
	  "-DCONFIGURE_OPTIONS=-DAUTHD_UNIT_TESTS=$(UNIT_TESTS)" "-DEXCLUDE_LABEL=$(TEST_EXCLUDE)"

# The sanitizer run covers the code, not the front servers again: the unit
# tests (with the store contract suite on PostgreSQL), the black-box suite
# through lighttpd and the libFuzzer targets (ASAN_LABELS), in one
# clang-19 tree (build-asan/, Debug) with ASan + UBSan and libFuzzer's coverage
# instrumentation (-DAUTHD_FUZZ=ON), each fuzz target run for FUZZ_SECONDS
# from its seed corpus; each GoogleTest executable is one test
# (cmake/UnitTests.cmake). The other front servers, the browser, PostgreSQL,
# hosting, install and Prism suites exercise the same code paths; the install
# tests build the example program, which needs no sanitizer.
ASAN_LABELS ?= unit|blackbox|fuzz
test-asan:
	@$(DEPS) fuzz
	@$(DEPS) test
	CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) $(CTEST) -V -S test/ci.cmake -DBUILD_DIR=build-asan -DBUILD_TYPE=Debug \
	  "-DCONFIGURE_OPTIONS=-DCMAKE_CXX_COMPILER=$(FUZZ_CXX) -DAUTHD_SANITIZE=ON -DAUTHD_FUZZ=ON -DAUTHD_FUZZ_SECONDS=$(FUZZ_SECONDS) -DAUTHD_PRECOMPILED_HEADERS=ON -DAUTHD_UNIT_TEST_CASES=OFF" \
	  -DJOBS=$(JOBS) "-DINCLUDE_LABEL=$(ASAN_LABELS)" -DEXCLUDE_LABEL=soak

# conf/authd.conf, docs/configuration.md and man/authd.conf.5 from the settings
# tables (scripts/settings-docs.sh; CTest docs.settings fails when they differ).
settings-docs: build
	scripts/settings-docs.sh $(BUILD_DIR)/authd

# The "# BEGIN front-routes" regions of the front servers' configurations from
# the route table, src/api/<group>/routes.hpp (scripts/front-routes.py; CTest
# docs.route_prefixes fails when they differ). Needs no build.
front-routes:
	scripts/front-routes.py

clean:
	rm -rf $(BUILD_DIR) $(BUILD_DIR)-hosting build-asan $(DIST_DIR)

# make deb: scripts/build-deb.sh copies the sources to $(DEB_DIR)/authd-<version>/,
# builds there with dpkg-buildpackage (debhelper, debian/) and runs lintian
# (errors and warnings fail). docs/debian-package.md.
DEB_DIR ?= build-deb
.PHONY: deb
deb:
	JOBS=$(JOBS) scripts/build-deb.sh $(DEB_DIR)

# make dist: scripts/dist.sh builds the programs in $(DIST_DIR) with the
# libraries a shared host lacks linked in (cmake/Relocatable.cmake), checks
# them against packaging/hosting/RELEASE-NOTES.md and packs the tarball there.
DIST_DIR ?= build-dist
.PHONY: dist
dist:
	JOBS=$(JOBS) scripts/dist.sh --build-dir $(DIST_DIR)

# make bench: bench/run.sh (installs wrk, Google Benchmark, nginx, Apache and
# Node if missing, builds in build-bench/, micro-benchmarks, then wrk against
# the ceiling and authd behind lighttpd, nginx with FastCGI keep-alive and
# Apache, the Node peers of bench/peers, stores of 1k-1M users, and the
# capacity model of PostgreSQL nodes: BENCH_PARTS=scale, bench/lib/scale.sh).
# Parameters: BENCH_* variables at the top of bench/run.sh.
.PHONY: bench
bench:
	JOBS=$(JOBS) bench/run.sh

# make fuzz: the libFuzzer targets of test/fuzz, built optimised with clang-19
# in $(FUZZ_DIR) (-DAUTHD_FUZZ=ON: ASan + UBSan + coverage), each run by CTest
# for FUZZ_SECONDS (default 20) from its seed corpus: for fuzzing campaigns
# (make test-asan, and so CI, runs the same targets from its Debug tree).
# make fuzz-long runs them longer (FUZZ_SECONDS=600 by default; override on
# the command line).
# Crashing inputs are left in $(FUZZ_DIR)/test/fuzz/artifacts/.
FUZZ_DIR     ?= build-fuzz
FUZZ_SECONDS ?= 20
FUZZ_CXX     ?= clang++-19
FUZZ_CC      ?= clang-19

.PHONY: fuzz fuzz-long
fuzz:
	@$(DEPS) fuzz
	CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) -DAUTHD_FUZZ=ON -DAUTHD_BUILD_TESTS=OFF -DAUTHD_FUZZ_SECONDS=$(FUZZ_SECONDS)
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target fuzz_token fuzz_signup_json fuzz_authorization fuzz_request_path fuzz_fcgi_parser fuzz_webauthn fuzz_client_assertion fuzz_directory_filter fuzz_directory_answer
	cd $(FUZZ_DIR) && $(CTEST) -L fuzz -j$(JOBS) --output-on-failure

fuzz-long: FUZZ_SECONDS = 600
fuzz-long: fuzz

# make install: the binaries, the core library (libauthd.a), its headers and
# pkg-config file (authd.pc), and conf/ + www/ under share/authd.
# PREFIX (/usr/local) and DESTDIR (staging root) are honoured.
PREFIX  ?= /usr/local
DESTDIR ?=

.PHONY: install
install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD_DIR) --prefix $(PREFIX)

# make soak: the long variants of the concurrency/crash/load/shutdown tests
# (CTest label soak: minutes of wrk load, 30 SIGKILLs, ...), one at a time.
# `make test` (and CI) leave them out.
.PHONY: soak
soak:
	@$(DEPS) test
	$(CTEST) -V -S test/ci.cmake -DBUILD_DIR=$(BUILD_DIR) -DBUILD_TYPE=$(BUILD_TYPE) -DJOBS=1 \
	  -DINCLUDE_LABEL=soak -DEXCLUDE_LABEL=
