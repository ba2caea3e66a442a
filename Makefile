# The two commands: `make run` starts Parley on embedded defaults; `make test` runs every test.
CONFIG ?= debug
ARGS ?=

.PHONY: run test build deps
run: deps
	swift build -c $(CONFIG) --product parley
	.build/$(CONFIG)/parley --config config/parley.yaml $(ARGS)

test:
	scripts/test.sh

build: deps
	swift build -c $(CONFIG)

deps:
	scripts/install-deps.sh
