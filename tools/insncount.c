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
 * A profile too: every kernel block counts its executions.  When the file
 * FILE.req appears (the guest creates it), the totals of every block so
 * far go to FILE.prof as "ADDRESS INSTRUCTIONS" lines and FILE.req is
 * removed; the guest takes two such snapshots around a run, subtracts,
 * and names the addresses from its /proc/kallsyms.
 *
 * Built by scripts/bench (gcc -shared); QEMU must have plugins enabled
 * (Debian's does).  The part of QEMU's plugin ABI it uses is declared in
 * qemu-plugin-abi.h.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qemu-plugin-abi.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* x86-64: the kernel's half of the address space */
#define KERNEL_START 0xffff800000000000ULL

struct vcpu_count {
	_Alignas(64) uint64_t insns[2];	/* [0] user, [1] kernel; written by the vCPU's thread only */
};

/* A kernel block as translated (a block translated again gets another) */
struct block {
	uint64_t vaddr;
	uint64_t insns;		/* executed, all vCPUs: atomic adds */
	uint32_t n;		/* instructions in the block */
	struct block *next;
};

static struct block *blocks;	/* newest first; under blocks_lock */
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vcpu_count *counts;
static int nr_vcpus;
static const char *out_path;
static char tmp_path[4096], req_path[4096], prof_path[4096], prof_tmp[4096];
static bool stopping;	/* atomic: set at exit, read by the publisher */

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

static void kernel_tb_exec(unsigned int vcpu, void *udata)
{
	struct block *b = udata;
	uint64_t *c;

	__atomic_fetch_add(&b->insns, b->n, __ATOMIC_RELAXED);
	if (vcpu >= (unsigned int)nr_vcpus)
		return;
	c = &counts[vcpu].insns[1];
	__atomic_store_n(c, *c + b->n, __ATOMIC_RELAXED);
}

static void tb_trans(uint64_t id, struct qemu_plugin_tb *tb)
{
	uintptr_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (vaddr < KERNEL_START) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(n << 1));
		return;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(n << 1 | 1));
		return;
	}
	b->vaddr = vaddr;
	b->n = n;
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, kernel_tb_exec,
					     QEMU_PLUGIN_CB_NO_REGS, b);
}

/* FILE.req exists: every kernel block's count to FILE.prof */
static void dump_profile(void)
{
	struct block *b;
	FILE *f;

	if (access(req_path, F_OK))
		return;
	f = fopen(prof_tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&blocks_lock);
	b = blocks;
	pthread_mutex_unlock(&blocks_lock);
	/* The list only grows at its head: the rest is stable. */
	for (; b; b = b->next) {
		uint64_t c = __atomic_load_n(&b->insns, __ATOMIC_RELAXED);

		if (c)
			fprintf(f, "%llx %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)c);
	}
	if (fclose(f) == 0 && rename(prof_tmp, prof_path) == 0)
		unlink(req_path);
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
	while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
		publish();
		dump_profile();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void at_exit(uint64_t id, void *udata)
{
	__atomic_store_n(&stopping, true, __ATOMIC_RELAXED);
	publish();
}

int qemu_plugin_install(uint64_t id, const struct qemu_plugin_info *info,
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
	snprintf(req_path, sizeof(req_path), "%s.req", out_path);
	snprintf(prof_path, sizeof(prof_path), "%s.prof", out_path);
	snprintf(prof_tmp, sizeof(prof_tmp), "%s.prof.tmp", out_path);
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
