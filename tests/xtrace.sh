# SPDX-License-Identifier: GPL-2.0
# MPATH_TEST_TRACE=1 (scripts/run-tests): sourced through BASH_ENV by each
# test's bash, writes every command it runs with the time it began to
# $MPATH_TRACE_FILE (NAME.trace); scripts/trace-top says where the time went.
if [ -n "${MPATH_TRACE_FILE:-}" ]; then
	exec 9>>"$MPATH_TRACE_FILE"
	BASH_XTRACEFD=9
	PS4='+ ${EPOCHREALTIME} ${BASH_SOURCE##*/}:${LINENO} '
	set -x
fi
