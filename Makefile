# SPDX-License-Identifier: GPL-2.0
#
# The project's driver (not the kernel's Makefile).  Every target sets up
# what is missing, assembles the tree in build/, and builds incrementally.
#
#   make / make demo   boot the kernel and show the samples and the knobs
#   make check         boot and run every test suite; last line "N passed, N failed"
#   make shell         boot into an interactive shell
#   make patches       write the patch series to build/patches/
#   make bench         the benchmark on our kernel and on pristine upstream
#   DEBUG=1            build and test the lockdep kernel (build/obj-debug)

T := tools/testing/kprobes
export BUILD ?= $(CURDIR)/build

# make check DEBUG=1: the same tests on a kernel with lockdep and friends.
ifeq ($(DEBUG),1)
export OBJ := $(BUILD)/obj-debug
export EXTRA_CONFIGS := $(CURDIR)/configs/debug.config
endif

.PHONY: all demo check shell patches bench setup assemble build clean

all: demo

setup:
	@$(T)/setup.sh

assemble: setup
	@$(T)/assemble.sh

build: assemble
	@$(T)/build.sh

demo: build
	@$(T)/run.sh demo $(BUILD)/demo.log | sed -n '/^### /,/^kptest: done/p'

check: build
	@$(T)/check.sh

shell: build
	@$(T)/run.sh shell

patches: assemble
	@$(T)/patches.sh

bench: assemble
	@$(T)/bench.sh

clean:
	rm -rf $(BUILD)
