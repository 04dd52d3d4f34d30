# torchsolve — the two commands the README promises:
#   make setup   install missing Debian build/test dependencies (as root), configure, build
#   make test    build if needed and run every test through ctest
# plus: make sanitize (ASan+UBSan build and tests), make fuzz, make install PREFIX=...,
#   make rules-wheel (the torchsolve-rules data package from rules.yaml, in $(BUILD)/dist)

BUILD        ?= build
BUILD_ASAN   ?= build-asan
BUILD_FUZZ   ?= build-fuzz
PREFIX       ?= /usr/local
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 20
CMAKE_FLAGS  ?=

DEBIAN_PACKAGES = build-essential cmake pkg-config \
  libsolv-dev libsolvext-dev libcurl4-openssl-dev zlib1g-dev libyaml-dev \
  libcjson-dev libssl-dev libdeflate-dev libcriterion-dev \
  clang libclang-rt-14-dev nginx-light openssl tmux strace \
  python3 python3-venv python3-pip-whl python3-setuptools-whl python3-wheel-whl

.PHONY: setup deps build test sanitize fuzz install clean rules-wheel

setup: deps build

deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "all build dependencies are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "missing Debian packages; run as root:"; \
	    echo "  apt-get install -y $$missing"; exit 1; fi

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

sanitize:
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DTS_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS)

fuzz:
	CC=clang cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTS_FUZZ=ON -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_all
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./fuzz/run.sh $(BUILD_FUZZ)

# The facts as a data package for `torchsolve rules update`: validated as
# `rules check` does, then wheeled (version = rules.yaml's version:).
rules-wheel: build
	$(BUILD)/torchsolve rules check rules.yaml
	python3 tools/rules-wheel.py rules.yaml $(BUILD)/dist

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
