// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin that counts the instructions the guest
 * executes, kernel and user apart, and publishes the running totals in a
 * file the guest reads over its 9p root: the benchmark reads it before and
 * after a fio run and divides by the I/Os done.  Under TCG, times swing by
 * 5 to 40 % between runs; instruction counts do not, so the cost of a layer
 * (instructions per I/O above the raw path) compares setups to the percent.
 *
 *   qemu-system-x86_64 ... -plugin file=insncount.so,out=/path/to/file
 *
 * The file holds one line, "KERNEL USER\n", rewritten every 2 ms (a new file
 * renamed over the old: a reader sees one whole line).  Counting is exact:
 * each vCPU adds to its own counter from a callback run by its own thread.
 *
 * Built by scripts/bench (gcc -shared); QEMU must have plugins enabled
 * (Debian's does).  Only the part of QEMU's plugin ABI (version 1, QEMU 7.2
 * and later) that this file uses is declared here.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* QEMU plugin ABI, version 1 */
typedef uint64_t qemu_plugin_id_t;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
		void (*cb)(unsigned int vcpu, void *udata),
		enum qemu_plugin_cb_flags flags, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
		void (*cb)(qemu_plugin_id_t id, void *udata), void *udata);
EXPORT int qemu_plugin_version = 1;

/* x86-64: the kernel's half of the address space */
#define KERNEL_START 0xffff800000000000ULL

struct vcpu_count {
	uint64_t insns[2];	/* [0] user, [1] kernel; written by the vCPU's thread only */
} __attribute__((aligned(64)));

static struct vcpu_count *counts;
static int nr_vcpus;
static const char *out_path;
static char tmp_path[4096];
static volatile bool stopping;

/* udata: the block's instruction count << 1 | kernel */
static void tb_exec(unsigned int vcpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;
	uint64_t *c;

	if (vcpu >= (unsigned int)nr_vcpus)
		return;
	c = &counts[vcpu].insns[u & 1];
	__atomic_store_n(c, *c + (u >> 1), __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uintptr_t n = qemu_plugin_tb_n_insns(tb);
	uintptr_t kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(n << 1 | kernel));
}

static void publish(void)
{
	uint64_t k = 0, u = 0;
	FILE *f;
	int i;

	for (i = 0; i < nr_vcpus; i++) {
		u += __atomic_load_n(&counts[i].insns[0], __ATOMIC_RELAXED);
		k += __atomic_load_n(&counts[i].insns[1], __ATOMIC_RELAXED);
	}
	f = fopen(tmp_path, "w");
	if (!f)
		return;
	fprintf(f, "%llu %llu\n", (unsigned long long)k, (unsigned long long)u);
	if (fclose(f) == 0)
		rename(tmp_path, out_path);
}

static void *publisher(void *arg)
{
	struct timespec ts = { .tv_nsec = 2 * 1000 * 1000 };

	(void)arg;
	while (!stopping) {
		publish();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	stopping = true;
	publish();
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv);
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	pthread_t thread;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path || !info->system_emulation) {
		fprintf(stderr, "insncount: needs out=FILE and system emulation\n");
		return -1;
	}
	snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", out_path);
	nr_vcpus = info->system.max_vcpus;
	counts = aligned_alloc(64, sizeof(*counts) * nr_vcpus);
	if (!counts)
		return -1;
	memset(counts, 0, sizeof(*counts) * nr_vcpus);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	if (pthread_create(&thread, NULL, publisher, NULL))
		return -1;
	pthread_detach(thread);
	return 0;
}
