# opscope top-level commands. `make test` is the test command (README, .ci/run);
# `make demo` profiles a real ggml program on a tiny model.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all deps build test demo bench fuzz asan tsan clean install deb

all: build

deps:
	bash scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	bash scripts/test-all.sh $(BUILD)

# Installs into PREFIX (DESTDIR is honoured); the installed tree may be moved.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian package (CPack) from its own build in build-deb, prefix /usr; it has the capture
# library where ggml's headers are found (Debian forky's libggml-dev).
deb: deps
	cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
	      -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build build-deb -j $(JOBS)
	cd build-deb && cpack -G DEB
	@ls build-deb/packages/*.deb

# The demo builds quietly (its log in $(BUILD)/demo-build.log) and ends with the next commands.
demo: deps
	@bash scripts/demo.sh $(BUILD)

bench: build
	bash bench/run.sh $(BUILD)

fuzz: deps
	bash scripts/fuzz.sh

asan: deps
	cmake --preset asan && cmake --build build-asan -j $(JOBS) && ctest --preset asan

tsan: deps
	cmake --preset tsan && cmake --build build-tsan -j $(JOBS) && ctest --preset tsan

clean:
	rm -rf $(BUILD) build-asan build-tsan build-ubsan build-fuzz build-debug build-deb
