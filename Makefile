# Tabula — the thin front door.  The real build is Meson + Ninja (meson.build).
#   make build   install missing packages, build build/tabula
#   make run     build and start the game server (tabula serve on tabula.db; prints the URL)
#   make test    build and run every suite (normal; ASan+UBSan but the browser tests, whose
#                server paths the server suite covers; clang, fuzz for 20 s each; an install
#                into a temporary prefix)
#   make fuzz    every fuzz harness for FUZZ_SECONDS (default 300) each
#   make install PREFIX=DIR   install the library, header, tabula.pc, the binary, man pages,
#                web assets and the Python package (in DIR's Python site directory)
#   make test-install   install into a temporary prefix and build examples/ against it
#   make bench   the benchmarks of bench/RESULTS.md (-O3, built for this machine's CPU):
#                random playouts, then the search's iterations per second on 1 and 2 threads,
#                then the Python package's random play (bench/python_bench.py)
SHELL := /bin/bash
BUILD ?= build
SIM_GAMES ?= 10000
PREFIX ?= /usr/local
# Debian's Python (python3-numpy): a python3 earlier on PATH may lack NumPy
PYTHON ?= /usr/bin/python3

FUZZ_SECONDS ?= 300

.PHONY: all build run test test-fast test-asan test-clang test-install install fuzz bench deps clean

all: build

deps:
	@scripts/bootstrap.sh

$(BUILD)/build.ninja: | deps
	@meson setup $(BUILD) -Dsim_games=$(SIM_GAMES) >/dev/null

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null || ninja -C $(BUILD)

run: build
	./$(BUILD)/tabula serve --db tabula.db

test-fast: build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

test-asan: deps
	@[ -f build-asan/build.ninja ] || CC=gcc meson setup build-asan -Db_sanitize=address,undefined \
	    -Db_lundef=false -Dbuildtype=debug -Dsim_games=500 -Dsim_full_games=50 >/dev/null
	@ninja -C build-asan >/dev/null || ninja -C build-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 4 --no-suite e2e

test-clang: deps
	@[ -f build-clang/build.ninja ] || CC=clang meson setup build-clang -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dsim_games=200 >/dev/null
	@ninja -C build-clang >/dev/null || ninja -C build-clang
	meson test -C build-clang --print-errorlogs --num-processes 2 --suite fuzz

# Each libFuzzer harness for FUZZ_SECONDS (make test gives each 20 s).
fuzz: test-clang
	@for f in engine state record move data server; do \
	    echo "# fuzz_$$f for $(FUZZ_SECONDS) s"; \
	    mkdir -p build-clang/tests/fuzz/corpus-$$f; \
	    build-clang/tests/fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=20 \
	        build-clang/tests/fuzz/corpus-$$f tests/fuzz/corpus/$$f || exit 1; done

# A release build of its own, whose prefix follows PREFIX (reconfigured when it changes).
install: deps
	@[ -f build-install/build.ninja ] || meson setup build-install --buildtype=release -Dtests=false \
	    --prefix="$(abspath $(PREFIX))" >/dev/null
	@meson configure build-install -Dprefix="$(abspath $(PREFIX))"
	@ninja -C build-install >/dev/null || ninja -C build-install
	meson install -C build-install --quiet

test-install: deps
	PYTHON=$(PYTHON) tests/install/run_install_test.sh

test: test-fast test-asan test-clang test-install
	@echo "make test: every suite passed"

bench: deps
	@[ -f build-bench/build.ninja ] || meson setup build-bench --buildtype=release -Dtests=false \
	    -Dc_args=-march=native >/dev/null
	@ninja -C build-bench >/dev/null || ninja -C build-bench
	./build-bench/tabula bench --seconds 5
	@echo "# search iterations per second, one thread, 1000 iterations per decision"
	@for g in clans arkadia khronos; do ./build-bench/tabula bench --agent ismcts $$g --seconds 3; done
	@echo "# one thread and two on the same 40 positions, 10000 iterations per decision"
	@for g in clans arkadia khronos; do \
	    ./build-bench/tabula bench --agent ismcts $$g --iterations 10000 --decisions 40 --threads 1,2; done
	@echo "# one thread and two on the same 20 positions, 100 ms per decision (iterations/s add up)"
	@for g in clans arkadia khronos; do \
	    ./build-bench/tabula bench --agent ismcts $$g --ms 100 --decisions 20 --threads 1,2; done
	@echo "# Python (bench/python_bench.py): random decisions per second through the tabula package"
	PYTHONPATH=build-bench/python $(PYTHON) bench/python_bench.py --seconds 3

clean:
	rm -rf $(BUILD) build-asan build-clang build-release build-bench build-install
