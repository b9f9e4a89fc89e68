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

# wait_for SECONDS 'SHELL CODE': poll until the code (evaluated afresh
# each time: quote it) succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until eval "$*"; do
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
# sched_of DISK: the I/O scheduler in use on a disk ("none" for none)
sched_of() { cut -d[ -f2 "/sys/block/$1/queue/scheduler" | cut -d] -f1; }

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

# all_active: every lunpath of every LUN is active and every LUN has its disk
all_active() {
	local l p
	for l in $(luns); do
		[ -b "/dev/$l" ] || return 1
		for p in $(lun_paths "$l"); do
			[ "$(cat "$SYS/luns/$l/paths/$p/state" 2>/dev/null)" = active ] ||
				return 1
		done
	done
}
wait_active() { wait_for "${1:-20}" all_active || fail "lunpaths not all active: $(tree | tr '\n' ';')"; settle; }

# path_state LUN HCTL
path_state() { cat "$SYS/luns/$1/paths/$2/state"; }

# sd_ios SDX: reads + writes completed on a disk
sd_ios() { awk '{print $1 + $5}' "/sys/block/$1/stat"; }

# lun_disks LUN: the sd disks of its lunpaths
lun_disks() {
	local p
	for p in $(lun_paths "$1"); do
		sd_of "$p"
	done
}

# fio_verify NAME FILE [fio options...]: a write + crc32c verify job; fails
# the test on any error.  Output in /tmp/fio-NAME.json.
fio_verify() {
	local name=$1 file=$2
	shift 2
	fio --name="$name" --filename="$file" --ioengine=libaio --direct=1 \
	    --rw=randwrite --bs=4k --iodepth=16 --size=16M \
	    --verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
	    --output-format=json --output="/tmp/fio-$name.json" "$@" ||
		fail "fio $name failed: $(grep -o '"error" : [0-9]*' "/tmp/fio-$name.json" | sort | uniq -c | tr '\n' ' ')"
	fio_errors "$name" || fail "fio $name reported errors"
}

# fio_errors NAME: true when the job's JSON reports no error
fio_errors() {
	python3 - "/tmp/fio-$1.json" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("\n{") + 1 if not t.startswith("{") else 0:])
sys.exit(1 if any(j["error"] for j in d["jobs"]) else 0)
PY
}

# fio_ios NAME rw: number of I/Os fio completed ("read" or "write")
fio_ios() {
	python3 - "/tmp/fio-$1.json" "$2" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("\n{") + 1 if not t.startswith("{") else 0:])
print(sum(j[sys.argv[2]]["total_ios"] for j in d["jobs"]))
PY
}

# unload_shim: rmmod mpath_shim, waiting out udev's short-lived opens
unload_shim() {
	settle
	wait_for 15 rmmod mpath_shim 2>/dev/null
}

# path_shares LUN CMD...: run CMD and print "hctl ios percent" per lunpath
path_shares() {
	local lun=$1 p d total=0
	shift
	declare -A b
	for p in $(lun_paths "$lun"); do b[$p]=$(sd_ios "$(sd_of "$p")"); done
	"$@" >/dev/null || fail "$* failed"
	for p in $(lun_paths "$lun"); do
		b[$p]=$(($(sd_ios "$(sd_of "$p")") - b[$p]))
		total=$((total + b[$p]))
	done
	for p in $(lun_paths "$lun"); do
		echo "$p ${b[$p]} $((b[$p] * 100 / (total ? total : 1)))"
	done
}

# fio_read FILE [options]: a short 4K random read job
fio_read() {
	local f=$1
	shift
	fio --name=read --filename="$f" --rw=randread --bs=4k --direct=1 \
	    --ioengine=libaio --iodepth=16 --size=16M --io_size=24M "$@"
}
