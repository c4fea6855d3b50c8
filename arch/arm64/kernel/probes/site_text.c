// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 site interface, registration side: deciding whether a place may be
 * probed, building its slot, and writing the BRKs into the text.
 *
 * Context for everything here: kprobe_mutex held (registration context,
 * include/linux/kprobes_arch.h), so these may sleep and take
 * cpus_read_lock() and text_mutex, in that order.
 */
#include <linux/cpu.h>
#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/smp.h>
#include <asm/cacheflush.h>
#include <asm/patching.h>
#include <asm/sections.h>
#include <linux/set_memory.h>
#include <asm/virt.h>

#include "site.h"

kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Slot pages come from the modules' area, within a B's reach of the
 * kernel's text (and of the modules', which come from the same area)
 * wherever arm64 could place it so, writable until filled: every word a
 * permanently undefined one, so that a stray branch into free space
 * oopses.  Then read-only and executable; the slots are written through
 * aarch64_insn_copy().
 */
void *kprobe_slot_page_alloc(void)
{
	u32 *page = execmem_alloc(EXECMEM_MODULE_TEXT, PAGE_SIZE);
	unsigned int i;

	if (!page)
		return NULL;
	for (i = 0; i < PAGE_SIZE / AARCH64_INSN_SIZE; i++)
		page[i] = cpu_to_le32(AARCH64_BREAK_FAULT);
	caches_clean_inval_pou((unsigned long)page,
			       (unsigned long)page + PAGE_SIZE);
	if (set_memory_rox((unsigned long)page, 1)) {
		execmem_free(page);
		return NULL;
	}
	return page;
}

static bool within(unsigned long addr, const char *start, const char *end)
{
	return addr >= (unsigned long)start && addr < (unsigned long)end;
}

/*
 * Text the core's own list does not name but arm64 never lets a probe
 * into: the hypervisor's, run at EL2 where no BRK of ours is handled (the
 * same areas as arm64's classic code refuses).
 */
static bool in_refused_arm64_text(unsigned long addr)
{
	if (within(addr, __hyp_text_start, __hyp_text_end))
		return true;
	return !is_kernel_in_hyp_mode() &&
	       within(addr, __hyp_idmap_text_start, __hyp_idmap_text_end);
}

/*
 * Write the slot of a site whose instruction runs from a copy: the step
 * copy, the boost copy where its B back reaches, and then the detour where
 * its branches reach too (site_optimize.c).  Return: the bytes written.
 */
static unsigned int build_slot(struct kprobe_site *site, kprobe_opcode_t *slot)
{
	unsigned long back = (unsigned long)(site->addr + 1);
	kprobe_opcode_t *boost = slot + KPROBE_BOOST_OFFSET;
	u32 words[KPROBE_SLOT_SIZE / AARCH64_INSN_SIZE] = {
		site->opcode, BRK64_OPCODE_KPROBES_SS, site->opcode,
	};
	unsigned int n = KPROBE_DETOUR_OFFSET, detour;

	/* (The generator logs an error for a branch out of reach: ask first.) */
	if (kprobe_a64_branch_reaches((unsigned long)(boost + 1), back))
		words[3] = aarch64_insn_gen_branch_imm((unsigned long)(boost + 1),
						       back, AARCH64_INSN_BRANCH_NOLINK);
	else
		words[3] = AARCH64_BREAK_FAULT;
	site->ainsn.boost = words[3] != AARCH64_BREAK_FAULT;
	if (!site->ainsn.boost) {
		n = KPROBE_BOOST_OFFSET;
	} else if (site->posted) {
		/* Only a site that boosts is near enough for a post copy. */
		detour = kprobe_a64_build_post(site, &words[n], slot + n);
		site->ainsn.post = detour != 0;
		n += detour;
	} else if (IS_ENABLED(CONFIG_OPTPROBES)) {
		/* Or for a detour. */
		detour = kprobe_a64_build_detour(site, &words[n], slot + n);
		site->ainsn.detour = detour != 0;
		n += detour;
	}
	/*
	 * aarch64_insn_copy() cleans the data cache and invalidates the
	 * instruction cache to the point of unification for the slot.  No
	 * CPU fetches it before the site's BRK is armed, and the trap of
	 * that BRK is a context synchronization event on the CPU that then
	 * runs the slot.
	 */
	aarch64_insn_copy(slot, words, n * AARCH64_INSN_SIZE);
	return n * AARCH64_INSN_SIZE;
}

/**
 * arch_prepare_kprobe_site() - check and prepare the instruction at a site
 * @site: a new site, ->addr set
 *
 * Return: 0; -EINVAL for an address that is not a word's, text arm64
 * never probes, an instruction with an exception table entry (its fixup
 * would not find the copy) or one site_decode.c refuses; -ENOMEM when no
 * slot is left.  The same answers as arm64's classic code gives.
 */
int arch_prepare_kprobe_site(struct kprobe_site *site)
{
	unsigned long addr = (unsigned long)site->addr;
	enum kprobe_a64_class class;
	kprobe_opcode_t *slot;

	if (!IS_ALIGNED(addr, AARCH64_INSN_SIZE))
		return -EINVAL;
	if (in_refused_arm64_text(addr) || kprobe_text_reserved(site->addr, 1))
		return -EINVAL;
	if (search_exception_tables(addr))
		return -EINVAL;

	site->opcode = le32_to_cpu(*site->addr);
	class = kprobe_a64_decode(site->addr);
	if (class == KPROBE_A64_REFUSED)
		return -EINVAL;
	site->ainsn.class = class;
	site->ainsn.insn = NULL;
	if (kprobe_a64_simulated(class))
		return 0;

	slot = kprobe_slot_alloc();
	if (!slot)
		return -ENOMEM;
	kprobe_slot_trim(slot, build_slot(site, slot));
	site->ainsn.insn = slot;
	return 0;
}

void arch_remove_kprobe_site(struct kprobe_site *site)
{
	if (site->ainsn.insn)
		kprobe_slot_free(site->ainsn.insn);
	site->ainsn.insn = NULL;
}

/* Nothing is learnt from text for preparing a site that could go stale. */
void arch_kprobe_text_gone(void)
{
}

/* Sites written per stop_machine() round: a few pages of arrays. */
#define POKES_PER_ROUND	256

/*
 * Write each queued site's word as its ->armed asks, and empty @queue.
 *
 * Replacing an arbitrary instruction with BRK while other CPUs may run it
 * is not among the changes the architecture allows without
 * synchronization, so the words go in through aarch64_insn_patch_text(),
 * which writes them from stop_machine() while every other CPU waits and
 * then takes an ISB: one round for up to POKES_PER_ROUND sites, where a
 * site at a time would stop the machine once each.
 */
void arch_kprobe_poke_sites(struct list_head *queue)
{
	static void *addrs[POKES_PER_ROUND];	/* kprobe_mutex */
	static u32 insns[POKES_PER_ROUND];
	struct kprobe_site *site, *tmp;
	int n = 0;

	cpus_read_lock();
	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, queue, poke) {
		addrs[n] = site->addr;
		insns[n] = site->armed ? BREAKPOINT_INSTRUCTION : site->opcode;
		list_del_init(&site->poke);
		if (++n == POKES_PER_ROUND) {
			WARN_ON(aarch64_insn_patch_text(addrs, insns, n));
			n = 0;
		}
	}
	if (n)
		WARN_ON(aarch64_insn_patch_text(addrs, insns, n));
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

static void text_sync_ipi(void *unused)
{
	/* The exception return is a context synchronization event. */
}

/*
 * Every CPU takes an interrupt, which it can only do outside the BRK
 * handlers (they run with DAIF masked) and which synchronizes its
 * instruction fetch on the way out.
 */
void arch_kprobe_text_sync(void)
{
	on_each_cpu(text_sync_ipi, NULL, 1);
}
