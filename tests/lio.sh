# SPDX-License-Identifier: GPL-2.0
# LIO iSCSI over loopback for tests/NNN-* scripts (sourced after common.sh):
# real sessions, LUNs remapped on one portal without telling the host.
# ../shared/lio-testbed.md has the recipe this follows.

LIO=/sys/kernel/config/target
IQN=iqn.2026-11.org.example:tgt
INIT=iqn.2026-11.org.example:host

# lio_setup N_LUS N_PORTALS [MB [SIZES]]: N_LUS file LUs (lu0..) of MB MiB
# each, or of the sizes in the list SIZES ("16 32": lu1 32 MiB), each portal
# t (127.0.0.t) exports lu0 as its LUN 0; the initiator logs in to all.
lio_setup() {
	local nlu=$1 nport=$2 mb=${3:-16} n t D T
	local -a sizes=(${4:-})
	command -v iscsiadm >/dev/null && command -v iscsid >/dev/null ||
		skip "open-iscsi not installed"
	modprobe -a target_core_mod target_core_file iscsi_target_mod iscsi_tcp 2>/dev/null ||
		skip "no LIO iSCSI target or iscsi_tcp modules"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir -p /tmp/lio-db/pr && echo /tmp/lio-db > $LIO/dbroot
	for n in $(seq 0 $((nlu - 1))); do
		mb=${sizes[n]:-${3:-16}}
		D=$LIO/core/fileio_0/lu$n
		rm -f /tmp/lu$n
		truncate -s ${mb}M /tmp/lu$n
		mkdir -p $D
		echo fd_dev_name=/tmp/lu$n,fd_dev_size=$((mb << 20)) > $D/control
		echo serial000$n > $D/wwn/vpd_unit_serial
		echo 1 > $D/enable
	done
	for t in $(seq 1 "$nport"); do
		T=$LIO/iscsi/$IQN/tpgt_$t
		mkdir -p $T/lun/lun_0
		ln -s $LIO/core/fileio_0/lu0 $T/lun/lun_0/lu0
		mkdir $T/np/127.0.0.$t:3260
		echo 0 > $T/attrib/generate_node_acls
		echo 0 > $T/attrib/authentication
		mkdir -p $T/acls/$INIT/lun_0
		ln -s $T/lun/lun_0 $T/acls/$INIT/lun_0/lun_0
		echo 1 > $T/enable
	done
	# The initiator's state must be writable (virtme-ng's root is not).
	mkdir -p /tmp/ie /tmp/vli /run/lock/iscsi
	cp -a /etc/iscsi/. /tmp/ie/
	mount --bind /tmp/ie /etc/iscsi
	[ -d /var/lib/iscsi ] && mount --bind /tmp/vli /var/lib/iscsi
	echo InitiatorName=$INIT > /etc/iscsi/initiatorname.iscsi
	iscsid || fail "iscsid"
	for t in $(seq 1 "$nport"); do
		iscsiadm -m discovery -t st -p 127.0.0.$t:3260 >/dev/null || fail "discovery 127.0.0.$t"
	done
	# How long a session in recovery keeps its devices blocked.
	iscsiadm -m node -o update -n node.session.timeo.replacement_timeout \
		-v "${LIO_REPLACEMENT_TIMEOUT:-120}" >/dev/null || fail "replacement_timeout"
	iscsiadm -m node -L all >/dev/null || fail "login"
	settle
}

# lio_hctl_of_portal T: H:C:T:L of the disk reached through portal 127.0.0.T
lio_hctl_of_portal() {
	local s h
	for s in /sys/class/iscsi_connection/connection*; do
		grep -qx "127.0.0.$1" "$s/persistent_address" "$s/address" 2>/dev/null || continue
		h=$(readlink -f "$s/device" | grep -o 'host[0-9]*' | head -n 1)
		ls /sys/class/scsi_device | grep "^${h#host}:" | head -n 1
		return
	done
}

# lio_remap T LU: portal T's LUN 0 becomes LU lu<LU>, the host not told
lio_remap() {
	local T=$LIO/iscsi/$IQN/tpgt_$1 l
	rm $T/acls/$INIT/lun_0/lun_0
	for l in $T/lun/lun_0/lu*; do rm "$l"; done
	rmdir $T/lun/lun_0
	mkdir $T/lun/lun_0
	ln -s $LIO/core/fileio_0/lu$2 $T/lun/lun_0/lu$2
	ln -s $T/lun/lun_0 $T/acls/$INIT/lun_0/lun_0
}

lio_teardown() {
	local T l n
	iscsiadm -m node -U all >/dev/null 2>&1
	settle
	pkill -x iscsid
	for T in $LIO/iscsi/$IQN/tpgt_*; do
		[ -d "$T" ] || continue
		echo 0 > $T/enable
		rm -f $T/acls/$INIT/lun_0/lun_0
		rmdir $T/acls/$INIT/lun_0 $T/acls/$INIT 2>/dev/null
		for l in $T/lun/lun_0/lu*; do rm -f "$l"; done
		rmdir $T/lun/lun_0 $T/np/* 2>/dev/null
		rmdir $T
	done
	rmdir $LIO/iscsi/$IQN $LIO/iscsi 2>/dev/null
	for n in $LIO/core/fileio_0/lu*; do rmdir "$n"; done
	rmdir $LIO/core/fileio_0 2>/dev/null
	umount /etc/iscsi /var/lib/iscsi 2>/dev/null
	modprobe -r iscsi_tcp iscsi_target_mod target_core_file 2>/dev/null
	return 0
}

# LIO tcm_loop: one LU (lu0) behind loopback ports, each port its own
# SCSI host and I_T nexus (initiator port naa.50014050000000fN), as
# ../shared/lio-testbed.md sets it up.  LOOP_LU is the LU's configfs
# directory: a file LU (loop_setup) or a block device's (loop_setup_iblock).
LOOP=$LIO/loopback
LOOP_LU=$LIO/core/fileio_0/lu0

# loop_setup [MB]: the LU, no port yet
loop_setup() {
	local mb=${1:-64} D=$LOOP_LU
	modprobe -a target_core_mod target_core_file tcm_loop 2>/dev/null ||
		skip "no LIO tcm_loop modules"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	# PR state (APTPL) is written under dbroot: writable, before the LU.
	mkdir -p /tmp/lio-db/pr && echo /tmp/lio-db > $LIO/dbroot
	rm -f /tmp/lu0
	truncate -s "${mb}M" /tmp/lu0
	mkdir -p $D
	echo "fd_dev_name=/tmp/lu0,fd_dev_size=$((mb << 20))" > $D/control
	echo serial0000 > $D/wwn/vpd_unit_serial
	echo 1 > $D/enable
}

# loop_setup_iblock DEV: the LU on block device DEV (LIO's iblock backend,
# which passes a SYNCHRONIZE CACHE on as a flush of DEV), no port yet
loop_setup_iblock() {
	modprobe -a target_core_mod target_core_iblock tcm_loop 2>/dev/null ||
		skip "no LIO iblock or tcm_loop modules"
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	mkdir -p /tmp/lio-db/pr && echo /tmp/lio-db > $LIO/dbroot
	LOOP_LU=$LIO/core/iblock_0/lu0
	mkdir -p $LOOP_LU
	echo "udev_path=$1" > $LOOP_LU/control
	echo serial0000 > $LOOP_LU/wwn/vpd_unit_serial
	echo 1 > $LOOP_LU/enable
}

# loop_add_port N: port N exports lu0 as its LUN 0
loop_add_port() {
	local W=$LOOP/naa.50014050000000a$1/tpgt_1
	mkdir -p $W/lun/lun_0
	echo "naa.50014050000000f$1" > $W/nexus
	ln -s $LOOP_LU $W/lun/lun_0/lu0
}

# loop_add_lun N L: port N exports lu0 as its LUN L too (one more lunpath)
loop_add_lun() {
	local W=$LOOP/naa.50014050000000a$1/tpgt_1
	mkdir -p $W/lun/lun_$2
	ln -s $LOOP_LU $W/lun/lun_$2/lu0
}

# loop_tpg NAME ID: a target port group of lu0 (ALUA)
loop_tpg() {
	mkdir -p $LOOP_LU/alua/$1
	echo "$2" > $LOOP_LU/alua/$1/tg_pt_gp_id
}

# loop_port_tpg N NAME: port N joins target port group NAME
loop_port_tpg() { echo "$2" > $LOOP/naa.50014050000000a$1/tpgt_1/lun/lun_0/alua_tg_pt_gp; }

# loop_alua NAME STATE: the group's asymmetric access state (0 active/
# optimized, 1 active/non-optimized, 2 standby, 3 unavailable, 15
# transitioning), an implicit transition
loop_alua() { echo "$2" > $LOOP_LU/alua/$1/alua_access_state; }

# loop_port_online N online|offline: port N's transport
loop_port_online() { echo "$2" > $LOOP/naa.50014050000000a$1/tpgt_1/transport_status; }

# loop_hctl N: H:C:T:L of the disk behind port N
loop_hctl() { echo "$(<$LOOP/naa.50014050000000a$1/tpgt_1/address):0"; }

loop_teardown() {
	local W l links=() luns=() ports=() gps=()
	# One rm and one rmdir for all (709 has 44 LUNs and groups: a command
	# costs ~0.15 s under TCG).
	for W in $LOOP/naa.*/tpgt_1; do
		[ -d "$W" ] || continue
		for l in $W/lun/lun_*; do
			[ -d "$l" ] || continue
			links+=("$l/lu0")
			luns+=("$l")
		done
		ports+=("$W" "${W%/tpgt_1}")
	done
	[ ${#links[@]} -eq 0 ] || rm -f "${links[@]}"
	rmdir "${luns[@]}" "${ports[@]}" $LOOP 2>/dev/null
	for W in $LOOP_LU/alua/*; do
		[ -d "$W" ] && [ "${W##*/}" != default_tg_pt_gp ] && gps+=("$W")
	done
	[ ${#gps[@]} -eq 0 ] || rmdir "${gps[@]}" 2>/dev/null
	rmdir $LOOP_LU ${LOOP_LU%/*} 2>/dev/null
	settle
	# A removed lunpath holds its driver's module for an RCU grace period.
	for W in tcm_loop target_core_file target_core_iblock; do
		modprobe -r $W 2>/dev/null || { sleep 1; modprobe -r $W 2>/dev/null; }
	done
	return 0
}

# Persistent reservations (sg3-utils' sg_persist for what the LU says).
# pr OP ARGS...: IOC_PR_* on /dev/mpath0 (what blkpr and fence_mpath's
# kernel path use): register OLD NEW [FLAGS], reserve KEY TYPE, release
# KEY TYPE, preempt OLD NEW TYPE, clear KEY (linux/pr.h's types).
pr() {
	python3 - "$@" <<'PY'
import fcntl, os, struct, sys
op, a = sys.argv[1], [int(x, 0) for x in sys.argv[2:]]
codes = {"register": (0x401870c8, "QQII", lambda: (a[0], a[1], a[2] if len(a) > 2 else 0, 0)),
         "reserve": (0x401070c9, "QII", lambda: (a[0], a[1], 0)),
         "release": (0x401070ca, "QII", lambda: (a[0], a[1], 0)),
         "preempt": (0x401870cb, "QQII", lambda: (a[0], a[1], a[2], 0)),
         "clear": (0x401070cd, "QII", lambda: (a[0], 0, 0))}
code, fmt, args = codes[op]
fd = os.open("/dev/mpath0", os.O_RDWR)
try:
    # A SCSI status (6.1) or PR_STS_* (6.5) comes back as a positive value.
    r = fcntl.ioctl(fd, code, bytearray(struct.pack(fmt, *args())), True)
except OSError as e:
    sys.exit("IOC_PR %s: %s" % (op, e.strerror))
if r:
    sys.exit("IOC_PR %s: status 0x%x" % (op, r))
PY
}
# A SCSI tool's command, sent again after a unit attention: LIO sets one
# on each nexus when a reservation is released or preempted, and SG_IO
# hands it to the caller (sd retries only its own commands).
ua_retry() {
	local i out
	for i in 1 2 3 4 5 6; do
		out=$("$@" 2>&1) && { echo "$out"; return 0; }
		echo "$out" | grep -qi "unit attention" || break
	done
	echo "$out"
	return 1
}
status() { ua_retry sg_persist -n --in --read-full-status /dev/mpath0; }
# nkeys KEY: the nexuses of the LU registered with KEY (a regex)
nkeys() {
	local s
	s=$(status) || { echo "READ-FULL-STATUS-failed: $s"; return; }
	echo "$s" | grep -c "Key=$1\$"
}
