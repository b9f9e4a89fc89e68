# SPDX-License-Identifier: GPL-2.0
# Helpers for tests/NNN-* scripts (sourced; bash).

REPO=${MPATH_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
MPATH_KO=${MPATH_KO:-$REPO/mpath_shim.ko}
SYS=/sys/kernel/mpath_shim
SD_HOSTS=/sys/bus/pseudo/drivers/scsi_debug

pass() { echo "PASS"; exit 0; }
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

settle() { udevadm settle -t 30 >/dev/null 2>&1 || sleep 2; }

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge "$end" ] && return 1
		sleep 0.2
	done
}

expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

luns() { ls "$SYS/luns" 2>/dev/null; }
nr_luns() { luns | wc -l; }
lun_paths() { ls "$SYS/luns/$1/paths" 2>/dev/null; }
nr_paths() { lun_paths "$1" | wc -l; }
hbas() { ls "$SYS/hbas" 2>/dev/null; }

# sd name (sdX) of a scsi_device H:C:T:L
sd_of() { ls "/sys/class/scsi_device/$1/device/block" 2>/dev/null; }

# H:C:T:L of every scsi_debug disk
scsi_debug_hctls() {
	local h d
	for h in /sys/class/scsi_host/host*; do
		grep -qx scsi_debug "$h/proc_name" 2>/dev/null || continue
		for d in /sys/class/scsi_device/"${h##*host}":*; do
			[ -e "$d" ] && basename "$d"
		done
	done
}

# A snapshot of the tree: LUN, wwid, lunpath, state, HBA; one line each.
tree() {
	local l p
	for l in $(luns); do
		for p in $(lun_paths "$l"); do
			echo "$l $(cat "$SYS/luns/$l/wwid") $p" \
			     "$(cat "$SYS/luns/$l/paths/$p/state")" \
			     "$(basename "$(readlink "$SYS/luns/$l/paths/$p/hba")")"
		done
	done
}
