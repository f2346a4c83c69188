# zkit: build, run, test, benchmark. `make run` and `make test` install what a
# fresh Debian machine lacks (redis-server, redis-tools, libclang) first.

CARGO ?= cargo
RELEASE_MODULE := target/release/libzkit.so
RUN_DIR := .run

.PHONY: deps build run test bench lint clean

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

bench: build
	bash bench/bench.sh $(CURDIR)/$(RELEASE_MODULE)

lint:
	$(CARGO) fmt --check
	$(CARGO) clippy --all-targets -- -D warnings

clean:
	$(CARGO) clean
	rm -rf $(RUN_DIR)
