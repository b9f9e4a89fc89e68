/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin ABI (version 1, QEMU 7.2 and later) that
 * tools/insncount.c uses, declared from its documented interface.
 */
#ifndef INSNCOUNT_QEMU_PLUGIN_H
#define INSNCOUNT_QEMU_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* qemu_info_t: what QEMU tells the plugin at install */
struct qemu_plugin_info {
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
};

struct qemu_plugin_tb;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

/* The plugin's id (qemu_plugin_id_t) is a uint64_t. */
void qemu_plugin_register_vcpu_tb_trans_cb(uint64_t id,
		void (*cb)(uint64_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
		void (*cb)(unsigned int vcpu, void *udata),
		enum qemu_plugin_cb_flags flags, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn;
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
		size_t idx);
/* QEMU 7.2 to 8.2 (plugin API 1); 9.0 changed it to copy into a buffer */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
/* Memory accesses and single instructions (pages=1 only) */
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
		void (*cb)(unsigned int vcpu, qemu_plugin_meminfo_t info,
			   uint64_t vaddr, void *udata),
		enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
		void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
		void (*cb)(unsigned int vcpu, void *udata),
		enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_atexit_cb(uint64_t id,
		void (*cb)(uint64_t id, void *udata), void *udata);

QEMU_PLUGIN_EXPORT int qemu_plugin_install(uint64_t id,
		const struct qemu_plugin_info *info, int argc, char **argv);

#endif
