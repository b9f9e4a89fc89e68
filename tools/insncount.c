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
 * The file holds one line, "KERNEL USER ...\n", rewritten every 2 ms (a new file
 * renamed over the old: a reader sees one whole line).  Counting is exact:
 * each vCPU adds to its own counter from a callback run by its own thread.
 *
 * A profile too: every kernel block counts its executions.  When the file
 * FILE.req appears (the guest creates it), the totals of every block so
 * far go to FILE.prof as "ADDRESS INSTRUCTIONS" lines and FILE.req is
 * removed; the guest takes two such snapshots around a run, subtracts,
 * and names the addresses from its /proc/kallsyms.
 *
 * Beside the instructions, four kinds of kernel instruction that cost
 * TCG far more than their count says (a helper call, or the end of the
 * translated block and a lookup of the next one): locked read-modify-writes
 * (a "lock" prefix, or xchg with memory), clock reads (rdtsc, rdtscp),
 * interrupt enables (sti, popf) and indirect branches (ret, call and jmp
 * through a register or memory: every function's return is one).  And the
 * kernel's instructions in blocks with a "pause": busy waiting (spinning
 * on a contended lock), whose count follows how TCG interleaves the vCPUs
 * more than the work done.  The file's line is then "KERNEL USER LOCKED
 * CLOCK IRQON INDIRECT SPIN CR3 PAGES", the last seven kernel-only (CR3:
 * loads of CR3; PAGES: below); their decoding needs QEMU's plugin API 1
 * (QEMU 7.2 to 8.2), and they stay 0 on a later one.
 *
 * With the argument pages=1, also the pages the kernel touches afresh: an
 * access to a page not touched since the vCPU last loaded CR3 (which
 * empties QEMU's software TLB: each such access is a TLB refill, a page
 * walk in C) counts one.  It is a model, not QEMU's TLB (no capacity,
 * no other flush), and it slows every kernel memory access: off by
 * default (PAGES stays 0).
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

/* Kernel instructions TCG pays extra for (see above) */
enum { EV_LOCKED, EV_CLOCK, EV_IRQON, EV_INDIRECT, EV_CR3, NR_EV };

/* The pages model: a direct-mapped table per vCPU, big enough to be exact */
#define PAGE_SLOTS	(1u << 16)
struct page_slot {
	uint64_t page;
	uint64_t gen;
};

struct vcpu_count {
	_Alignas(64) uint64_t insns[2];	/* [0] user, [1] kernel; written by the vCPU's thread only */
	uint64_t ev[NR_EV];		/* kernel; the same */
	uint64_t spin;			/* kernel, in blocks with a pause; the same */
	uint64_t pages;			/* pages=1: fresh pages; the same */
	uint64_t gen;			/* pages=1: CR3 loads so far; the same */
	struct page_slot *slots;	/* pages=1: PAGE_SLOTS of them */
};

/* A kernel block as translated (a block translated again gets another) */
struct block {
	uint64_t vaddr;
	uint64_t insns;		/* executed, all vCPUs: atomic adds */
	uint32_t n;		/* instructions in the block */
	uint8_t ev[NR_EV];	/* of them, each kind of event */
	bool spin;		/* it has a pause: a busy-wait loop */
	struct block *next;
};

static struct block *blocks;	/* newest first; under blocks_lock */
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vcpu_count *counts;
static int nr_vcpus;
static bool decode;	/* the plugin API lets us read instruction bytes */
static bool pages;	/* count fresh pages (pages=1) */
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
	int i;

	__atomic_fetch_add(&b->insns, b->n, __ATOMIC_RELAXED);
	if (vcpu >= (unsigned int)nr_vcpus)
		return;
	c = &counts[vcpu].insns[1];
	__atomic_store_n(c, *c + b->n, __ATOMIC_RELAXED);
	for (i = 0; i < NR_EV; i++) {
		if (!b->ev[i])
			continue;
		c = &counts[vcpu].ev[i];
		__atomic_store_n(c, *c + b->ev[i], __ATOMIC_RELAXED);
	}
	if (b->spin) {
		c = &counts[vcpu].spin;
		__atomic_store_n(c, *c + b->n, __ATOMIC_RELAXED);
	}
}

/* pages=1: a kernel access to @vaddr; fresh if not seen since the last CR3 load */
static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct vcpu_count *v;
	struct page_slot *s;
	uint64_t page = vaddr >> 12;

	(void)info;
	(void)udata;
	if (vcpu >= (unsigned int)nr_vcpus)
		return;
	v = &counts[vcpu];
	s = &v->slots[(page ^ (page >> 16)) & (PAGE_SLOTS - 1)];
	if (s->page == page && s->gen == v->gen)
		return;
	s->page = page;
	s->gen = v->gen;
	__atomic_store_n(&v->pages, v->pages + 1, __ATOMIC_RELAXED);
}

/* pages=1: a CR3 load: every page is fresh again */
static void cr3_load(unsigned int vcpu, void *udata)
{
	(void)udata;
	if (vcpu < (unsigned int)nr_vcpus)
		counts[vcpu].gen++;
}

/* Is it a pause (rep nop), the body of every busy-wait loop? */
static bool is_pause(const uint8_t *p, size_t len)
{
	return len == 2 && p[0] == 0xf3 && p[1] == 0x90;
}

/* Which event an x86-64 instruction is, or -1: its bytes @p, @len of them */
static int classify(const uint8_t *p, size_t len)
{
	bool lock = false;
	size_t i = 0;

	/* legacy prefixes, then at most one REX */
	for (; i < len; i++) {
		if (p[i] == 0xf0)
			lock = true;
		else if (p[i] != 0xf2 && p[i] != 0xf3 && p[i] != 0x2e &&
			 p[i] != 0x36 && p[i] != 0x3e && p[i] != 0x26 &&
			 p[i] != 0x64 && p[i] != 0x65 && p[i] != 0x66 &&
			 p[i] != 0x67)
			break;
	}
	if (i < len && (p[i] & 0xf0) == 0x40)
		i++;
	if (lock)
		return EV_LOCKED;
	if (i >= len)
		return -1;
	switch (p[i]) {
	case 0x86:	/* xchg with memory: locked without the prefix */
	case 0x87:
		return i + 1 < len && (p[i + 1] >> 6) != 3 ? EV_LOCKED : -1;
	case 0xfb:	/* sti */
	case 0x9d:	/* popf */
		return EV_IRQON;
	case 0xc3:	/* ret */
	case 0xc2:	/* ret imm16 */
	case 0xcf:	/* iret */
		return EV_INDIRECT;
	case 0xff:	/* call or jmp through r/m: /2 and /4 (near), /3 and /5 (far) */
		if (i + 1 < len && ((p[i + 1] >> 3) & 7) >= 2 && ((p[i + 1] >> 3) & 7) <= 5)
			return EV_INDIRECT;
		return -1;
	case 0x0f:
		if (i + 1 < len && p[i + 1] == 0x31)	/* rdtsc */
			return EV_CLOCK;
		if (i + 2 < len && p[i + 1] == 0x01 && p[i + 2] == 0xf9)	/* rdtscp */
			return EV_CLOCK;
		if (i + 2 < len && p[i + 1] == 0x22 && ((p[i + 2] >> 3) & 7) == 3)
			return EV_CR3;	/* mov to CR3 */
		return -1;
	}
	return -1;
}

static void tb_trans(uint64_t id, struct qemu_plugin_tb *tb)
{
	uintptr_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;
	uintptr_t i;

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
	for (i = 0; decode && i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *p = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		int ev = classify(p, len);

		if (ev >= 0 && b->ev[ev] < UINT8_MAX)
			b->ev[ev]++;
		if (is_pause(p, len))
			b->spin = true;
		if (pages && ev == EV_CR3)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, cr3_load,
					QEMU_PLUGIN_CB_NO_REGS, NULL);
		if (pages)
			qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
					QEMU_PLUGIN_CB_NO_REGS,
					QEMU_PLUGIN_MEM_RW, NULL);
	}
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
	uint64_t k = 0, u = 0, spin = 0, pg = 0, ev[NR_EV] = { 0 };
	FILE *f;
	int i, e;

	for (i = 0; i < nr_vcpus; i++) {
		u += __atomic_load_n(&counts[i].insns[0], __ATOMIC_RELAXED);
		k += __atomic_load_n(&counts[i].insns[1], __ATOMIC_RELAXED);
		for (e = 0; e < NR_EV; e++)
			ev[e] += __atomic_load_n(&counts[i].ev[e], __ATOMIC_RELAXED);
		spin += __atomic_load_n(&counts[i].spin, __ATOMIC_RELAXED);
		pg += __atomic_load_n(&counts[i].pages, __ATOMIC_RELAXED);
	}
	f = fopen(tmp_path, "w");
	if (!f)
		return;
	fprintf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
		(unsigned long long)k, (unsigned long long)u,
		(unsigned long long)ev[EV_LOCKED],
		(unsigned long long)ev[EV_CLOCK], (unsigned long long)ev[EV_IRQON],
		(unsigned long long)ev[EV_INDIRECT], (unsigned long long)spin,
		(unsigned long long)ev[EV_CR3], (unsigned long long)pg);
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
		else if (!strcmp(argv[i], "pages=1"))
			pages = true;
	if (!out_path || !info->system_emulation) {
		fprintf(stderr, "insncount: needs out=FILE and system emulation\n");
		return -1;
	}
	snprintf(tmp_path, sizeof(tmp_path), "%s.tmp", out_path);
	snprintf(req_path, sizeof(req_path), "%s.req", out_path);
	snprintf(prof_path, sizeof(prof_path), "%s.prof", out_path);
	snprintf(prof_tmp, sizeof(prof_tmp), "%s.prof.tmp", out_path);
	nr_vcpus = info->system.max_vcpus;
	decode = info->version.cur == 1;
	counts = aligned_alloc(64, sizeof(*counts) * nr_vcpus);
	if (!counts)
		return -1;
	memset(counts, 0, sizeof(*counts) * nr_vcpus);
	pages = pages && decode;
	for (i = 0; pages && i < nr_vcpus; i++) {
		counts[i].slots = calloc(PAGE_SLOTS, sizeof(struct page_slot));
		if (!counts[i].slots)
			return -1;
		counts[i].gen = 1;	/* slots start at gen 0: all fresh */
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	if (pthread_create(&thread, NULL, publisher, NULL))
		return -1;
	pthread_detach(thread);
	return 0;
}
