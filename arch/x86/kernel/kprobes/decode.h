/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the x86 Kprobes files: reading and judging instructions as the
 * kernel was built, whatever our breakpoints and jumps did to the text.
 */
#ifndef _X86_KERNEL_KPROBES_DECODE_H
#define _X86_KERNEL_KPROBES_DECODE_H

#include <linux/jump_label.h>
#include <asm/insn.h>

struct kprobe_site;

int kprobe_decode_original(unsigned long addr, struct insn *insn, u8 *buf);
bool kprobe_insn_refused(struct insn *insn);
bool kprobe_insn_has_addr_size_prefix(struct insn *insn);
bool kprobe_text_owned_elsewhere(kprobe_opcode_t *addr, unsigned int len);
unsigned long kprobe_relative_target(struct insn *insn, unsigned long ip);

/* What a function's instructions say, decoded once (func.c); kprobe_mutex. */
struct kprobe_func *kprobe_func_get(unsigned long addr);
void kprobe_func_put(struct kprobe_func *f);
void kprobe_func_forget(void);
int kprobe_func_boundary(struct kprobe_func *f, unsigned long addr);
int kprobe_func_may_jump(struct kprobe_func *f, unsigned long addr,
			 unsigned int len);

int kprobe_prepare_fast_paths(struct kprobe_site *site, struct kprobe_func *f,
			      struct insn *insn, u8 *buf, kprobe_opcode_t *slot);

/* text_poke_vec() for our pokes, again under QEMU's TCG (patch.c). */
struct text_poke_vec;
void kprobe_poke_vec(const struct text_poke_vec *vec, unsigned int nr);
DECLARE_STATIC_KEY_FALSE(kprobe_repoke);

/* Sites with a jmp in the text (optimize.c); kprobe_mutex. */
extern unsigned int kprobe_nr_jumped;

#endif
