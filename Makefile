# Thin wrapper over CMake/CTest. Each target first makes sure the Debian
# packages it needs are installed (scripts/deps.sh; a no-op when they are).
#
#   make            install build deps, configure and build in build/
#   make run        + lighttpd/spawn-fcgi, build, serve on http://127.0.0.1:$(PORT)
#   make test       + test deps; configure, build and run every test (CTest script)
#   make test-asan  the same in build-asan/ with ASan+UBSan, Debug
#   make clean      remove the build trees
#
# Variables: BUILD_DIR (build), BUILD_TYPE (RelWithDebInfo), JOBS (2), PORT (8080).

BUILD_DIR  ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS       ?= 2
PORT       ?= 8080

DEPS  := scripts/deps.sh
CTEST ?= ctest

.PHONY: all build configure run test test-asan clean deps

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

test:
	@$(DEPS) test
	$(CTEST) -V -S test/ci.cmake -DBUILD_DIR=$(BUILD_DIR) -DBUILD_TYPE=$(BUILD_TYPE) -DJOBS=$(JOBS)

test-asan:
	@$(DEPS) test
	$(CTEST) -V -S test/ci.cmake -DBUILD_DIR=build-asan -DBUILD_TYPE=Debug \
	  -DCONFIGURE_OPTIONS=-DAUTHD_SANITIZE=ON -DJOBS=$(JOBS)

clean:
	rm -rf $(BUILD_DIR) build-asan
