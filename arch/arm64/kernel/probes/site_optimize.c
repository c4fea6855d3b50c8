// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 site interface, the heads built from one template: a post copy's
 * (below), and jump optimization: a probe whose instruction runs
 * from a copy is reached through a B to a detour in its slot instead of
 * through its BRK.  The detour (site_trampolines.S, a template copied per
 * site) saves a pt_regs, calls the pre_handlers, puts the registers back,
 * runs the copy and branches back: no exception at all.
 *
 * The region is the one instruction, so no other site can lie inside it
 * and no task can be half-way through it: what x86 must wait out before
 * its jump goes in (its region's later instructions) does not exist here.
 *
 * Text changes.  Arming writes a BRK in place of the instruction through
 * stop_machine() (site_text.c); optimizing then writes the B over the
 * BRK, and undoing writes the BRK back over the B.  B and BRK are both
 * among the instructions the architecture lets one CPU write while
 * another may execute them, so those two changes need no stop_machine():
 * a CPU fetches either the BRK, and takes the hit through the trap, or
 * the B, and takes it through the detour.  The IPI after them makes every
 * CPU fetch the new word from then on.  A CPU already in a detour when
 * the B goes finishes there: the slot lives until the site is freed,
 * after an RCU Tasks grace period.
 */
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/smp.h>
#include <asm/patching.h>

#include "site.h"

/* The head's size must leave room for the copy before it in a post copy. */
#define DETOUR_WORDS	(kprobe_a64_detour_end - kprobe_a64_detour_template)

/* Word index of @label in the template. */
#define DETOUR_AT(label)	((label) - kprobe_a64_detour_template)

/*
 * Write into @words a copy of the head template, as it will lie at @at:
 * its BL to @callback, @middle, the B back behind @site's instruction,
 * and the literals (@site, and @pc for the handlers).  Return: its length
 * in words, 0 when a branch of it would not reach.
 */
static unsigned int build_head(struct kprobe_site *site, u32 *words,
			       kprobe_opcode_t *at, void *callback, u32 middle,
			       unsigned long pc)
{
	unsigned int call = DETOUR_AT(kprobe_a64_detour_call);
	unsigned int insn = DETOUR_AT(kprobe_a64_detour_insn);
	unsigned int lit = DETOUR_AT(kprobe_a64_detour_site);
	unsigned long back = (unsigned long)(site->addr + 1);
	u64 literals[2] = { (unsigned long)site, pc };

	/* A post copy is the copy and the head: both fit in the slot. */
	if (WARN_ON_ONCE((DETOUR_WORDS + 1) * AARCH64_INSN_SIZE >
			 KPROBE_SLOT_SIZE - KPROBE_DETOUR_OFFSET * AARCH64_INSN_SIZE))
		return 0;
	if (!kprobe_a64_branch_reaches((unsigned long)(at + call),
				       (unsigned long)callback) ||
	    !kprobe_a64_branch_reaches((unsigned long)(at + insn + 1), back))
		return 0;
	memcpy(words, kprobe_a64_detour_template, DETOUR_WORDS * AARCH64_INSN_SIZE);
	words[call] = aarch64_insn_gen_branch_imm((unsigned long)(at + call),
						  (unsigned long)callback,
						  AARCH64_INSN_BRANCH_LINK);
	words[insn] = middle;
	words[insn + 1] = aarch64_insn_gen_branch_imm((unsigned long)(at + insn + 1),
						      back, AARCH64_INSN_BRANCH_NOLINK);
	memcpy(&words[lit], literals, sizeof(literals));
	return DETOUR_WORDS;
}

/*
 * Write into @words the detour of @site, as it will lie at @detour: the
 * head with the copy in its middle; the handlers see the probed address.
 * Return: its length in words, 0 when a branch would not reach (the site
 * then keeps its BRK).
 */
unsigned int kprobe_a64_build_detour(struct kprobe_site *site, u32 *words,
				     kprobe_opcode_t *detour)
{
	return build_head(site, words, detour, kprobe_a64_detour_callback,
			  site->opcode, (unsigned long)site->addr);
}

/*
 * Write into @words the post copy of @site, as it will lie at @post: the
 * copy, then the head with a NOP in its middle; the post_handlers see the
 * PC behind the instruction.  Return: its length in words, or 0.
 */
unsigned int kprobe_a64_build_post(struct kprobe_site *site, u32 *words,
				   kprobe_opcode_t *post)
{
	unsigned int n = build_head(site, words + 1, post + 1,
				    kprobe_a64_post_callback,
				    aarch64_insn_gen_nop(),
				    (unsigned long)(site->addr + 1));

	if (!n)
		return 0;
	words[0] = site->opcode;
	return n + 1;
}

/* The B from the site to its detour. */
static u32 jump_of(struct kprobe_site *site)
{
	return aarch64_insn_gen_branch_imm((unsigned long)site->addr,
			(unsigned long)kprobe_detour(&site->ainsn),
			AARCH64_INSN_BRANCH_NOLINK);
}

static void text_sync_ipi(void *unused)
{
	/* The exception return is a context synchronization event. */
}

/* In units of kprobe_opcode_t: one word, or 0 without a detour. */
unsigned int arch_kprobe_region_len(struct kprobe_site *site)
{
	return kprobe_detour(&site->ainsn) ? 1 : 0;
}

/*
 * Write the B of each of @sites over its BRK; empties @sites.
 * Context: kprobe_mutex held.
 */
void arch_optimize_sites(struct list_head *sites)
{
	struct kprobe_site *site, *tmp;

	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, sites, opt_list) {
		list_del_init(&site->opt_list);
		if (WARN_ON_ONCE(!kprobe_detour(&site->ainsn)))
			continue;
		WARN_ON(aarch64_insn_patch_text_nosync(site->addr, jump_of(site)));
		site->jumped = true;
		kprobe_site_update_flux(site);
	}
	mutex_unlock(&text_mutex);
	on_each_cpu(text_sync_ipi, NULL, 1);
}

/*
 * Write the BRK of each of @sites back over its B; empties @sites.  The
 * core writes the original instruction next where the site is disarmed.
 * Context: kprobe_mutex held.
 */
void arch_unoptimize_sites(struct list_head *sites)
{
	struct kprobe_site *site, *tmp;
	LIST_HEAD(undone);

	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, sites, opt_list) {
		if (!site->jumped) {
			list_del_init(&site->opt_list);
			continue;
		}
		WARN_ON(aarch64_insn_patch_text_nosync(site->addr,
						       BREAKPOINT_INSTRUCTION));
		list_move_tail(&site->opt_list, &undone);
	}
	mutex_unlock(&text_mutex);
	/* From here on no CPU takes a B that is gone. */
	on_each_cpu(text_sync_ipi, NULL, 1);
	list_for_each_entry_safe(site, tmp, &undone, opt_list) {
		list_del_init(&site->opt_list);
		arch_kprobe_drop_jump(site);
	}
}

/* The B is no longer in the text (or the text is gone). */
void arch_kprobe_drop_jump(struct kprobe_site *site)
{
	if (site->jumped) {
		site->jumped = false;
		kprobe_site_update_flux(site);
	}
}
