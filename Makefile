# SPDX-License-Identifier: GPL-2.0
#
# make            build mpath_shim.ko against the VM kernel's headers
# make demo       set up, build, boot a VM, show one LUN over 4 paths
# make check      set up, build (W=1, sparse), KUnit, every VM test, a summary
# make kunit      the KUnit suites on UML
# make bench      benchmarks: mpath_shim vs dm-multipath vs the raw path
# make install    install as a driver for the running kernel (KVER=): module,
#                 mpathadm/mpathstat and man pages, udev rules, modprobe.d,
#                 modules-load.d; make uninstall removes it (PURGE=1: and the
#                 bindings file)
# make dkms-install / dkms-uninstall   the same module through DKMS
# make clean

# The kernel to build for, which the VM boots too: MPATH_KVER=6.1 (default,
# Debian 12's kernel), 6.12, or a release; see scripts/kver.  Never the
# host's running kernel, and never whichever is newest.
KVER ?= $(shell scripts/kver)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all modules setup demo check kunit bench clean install uninstall \
	dkms-install dkms-uninstall

all: modules

modules:
	@test -n "$(KVER)" || { echo "kernel $${MPATH_KVER:-6.1} is not installed with its headers: run scripts/setup (MPATH_KVER=6.1|6.12 selects)" >&2; exit 1; }
	@echo "mpath_shim: building for $(KVER) (MPATH_KVER=6.1|6.12 selects)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

setup:
	scripts/setup

demo: setup
	$(MAKE) modules
	scripts/vm -- scripts/demo-guest

check: setup
	scripts/check

kunit: setup
	scripts/kunit

bench: setup
	scripts/bench

# A server installs for the kernel it runs unless KVER= is given: not the
# VM kernel that "make" builds for.
INSTALL_KVER = $(if $(filter command line environment,$(origin KVER)),$(KVER),$(shell uname -r))
install uninstall dkms-install dkms-uninstall:
	KVER="$(INSTALL_KVER)" scripts/install $@

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf out
