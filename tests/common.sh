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

# Names in a directory, one a line, in ls's order: a glob, not a fork.
# The helpers below run in polling loops, where each command the guest
# forks and executes costs ~0.1 s under TCG.
dir_names() {
	local e
	for e in "$1"/*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		echo "${e##*/}"
	done
}
dir_count() {	# dir_count DIR: how many entries
	local e n=0
	for e in "$1"/*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		n=$((n + 1))
	done
	echo $n
}
# sysval FILE: its first line, like cat for a sysfs attribute (no fork; a
# failed read fails, as cat does, where $(<FILE) says nothing)
sysval() { local v; IFS= read -r v < "$1" || [ -n "$v" ] || return 1; echo "$v"; }

luns() { dir_names "$SYS/luns"; }
nr_luns() { dir_count "$SYS/luns"; }
lun_paths() { dir_names "$SYS/luns/$1/paths"; }
nr_paths() { dir_count "$SYS/luns/$1/paths"; }
hbas() { dir_names "$SYS/hbas"; }

# sd name (sdX) of a scsi_device H:C:T:L
sd_of() { dir_names "/sys/class/scsi_device/$1/device/block"; }
# sched_of DISK: the I/O scheduler in use on a disk ("none" for none)
sched_of() {
	local s
	s=$(sysval "/sys/block/$1/queue/scheduler") || return 1
	s=${s#*\[}
	echo "${s%%\]*}"
}

# H:C:T:L of every scsi_debug disk
scsi_debug_hctls() {
	local h d n
	for h in /sys/class/scsi_host/host*; do
		{ IFS= read -r n < "$h/proc_name"; } 2>/dev/null || continue
		[ "$n" = scsi_debug ] || continue
		for d in /sys/class/scsi_device/"${h##*host}":*; do
			[ -e "$d" ] && echo "${d##*/}"
		done
	done
}

# A snapshot of the tree: LUN, wwid, lunpath, state, HBA; one line each.
tree() {
	local l p
	for l in $(luns); do
		for p in $(lun_paths "$l"); do
			echo "$l $(sysval "$SYS/luns/$l/wwid") $p" \
			     "$(sysval "$SYS/luns/$l/paths/$p/state")" \
			     "$(basename "$(readlink "$SYS/luns/$l/paths/$p/hba")")"
		done
	done
}

# all_active: every lunpath of every LUN is active and every LUN has its disk
all_active() {
	local l p s
	for l in $(luns); do
		[ -b "/dev/$l" ] || return 1
		for p in $(lun_paths "$l"); do
			{ IFS= read -r s < "$SYS/luns/$l/paths/$p/state"; } 2>/dev/null || return 1
			[ "$s" = active ] || return 1
		done
	done
}
wait_active() { wait_for "${1:-20}" all_active || fail "lunpaths not all active: $(tree | tr '\n' ';')"; settle; }

# path_state LUN HCTL
path_state() { sysval "$SYS/luns/$1/paths/$2/state"; }

# sd_ios SDX: reads + writes completed on a disk
sd_ios() {
	local s
	read -r -a s < "/sys/block/$1/stat" || return 1
	echo $((s[0] + s[4]))
}

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

# fio_errors NAME: true when the job's JSON reports no error (each job's
# "error" : N line; awk, not python: a python start costs ~1 s under TCG)
fio_errors() {
	awk '/^ *"error" : / { n++; if ($3 + 0 != 0) bad = 1 } END { exit bad || !n }' "/tmp/fio-$1.json"
}

# fio_ios NAME rw: number of I/Os fio completed ("read" or "write"): the
# total_ios of each job's "read" or "write" object
fio_ios() {
	awk -v rw="\"$2\"" '/^ *"[a-z_]+" : \{/ { sec = $1 } sec == rw && /^ *"total_ios" : / { n += $3 } END { print n + 0 }' \
		"/tmp/fio-$1.json"
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
