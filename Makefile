# opgen's own development tasks. `make help` lists them.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= out/example

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

.PHONY: setup
setup: $(BIN)/.installed ## Create .venv and install opgen with its development tools.

.PHONY: envtest
# opgen's own tests include garbage collection under kube-controller-manager,
# which the downloaded envtest archives lack: --controller-manager builds it.
envtest: setup ## Find, download or build kube-apiserver, etcd and kube-controller-manager (cached).
	@case "$$(echo "$${OPGEN_REQUIRE_ENVTEST:-}" | tr '[:upper:]' '[:lower:]')" in \
	  1|true|yes|on) $(BIN)/opgen envtest use --controller-manager ;; \
	  *) $(BIN)/opgen envtest use --controller-manager || echo "envtest: no binaries, or no kube-controller-manager; the tests that need them will be skipped (OPGEN_REQUIRE_ENVTEST=1 makes this fatal)" >&2 ;; \
	esac

.PHONY: fmt
fmt: setup ## Format the code with black and ruff's import sorting.
	$(BIN)/black opgen tests benchmarks examples/raycluster_types.py examples/standalone
	$(BIN)/ruff check --fix --select I opgen tests benchmarks

.PHONY: lint
lint: setup ## black --check, ruff, import layering.
	$(BIN)/black --check --quiet opgen tests benchmarks examples/raycluster_types.py examples/standalone
	$(BIN)/ruff check --quiet opgen tests benchmarks examples/raycluster_types.py examples/standalone
	$(BIN)/lint-imports --no-cache

.PHONY: typecheck
typecheck: setup ## mypy --strict on the package, its tests and its benchmarks (one run).
	$(BIN)/mypy

.PHONY: test
test: setup lint typecheck envtest ## Everything CI runs: lint, types, envtest binaries, pytest.
	$(BIN)/pytest

.PHONY: example
example: setup ## Set up, then build the example RayCluster operator (CRD, RBAC, manager, config, tests) into out/example (OUT=dir).
	@examples/regenerate.sh "$(OUT)" "$(CURDIR)/$(BIN)/opgen"

.PHONY: example-project
example-project: setup ## Rebuild the committed examples/generated/ with the same recipe (then commit it).
	@examples/regenerate.sh "$(CURDIR)/examples/generated" "$(CURDIR)/$(BIN)/opgen"

.PHONY: core-types
core-types: envtest ## Regenerate opgen/api/k8s/ from the pinned kube-apiserver's OpenAPI (then commit it).
	$(BIN)/python -m opgen.cli.core_types

.PHONY: bench
bench: setup envtest ## Run the benchmarks and print their figures (BENCH="runtime -- --tables scale" selects).
	$(BIN)/python -m benchmarks $(BENCH)

.PHONY: clean
clean: ## Remove build and test leftovers (not the envtest cache).
	rm -rf out build dist .pytest_cache .mypy_cache .ruff_cache
