// SPDX-License-Identifier: GPL-2.0
/*
 * Executable slots for the out-of-line copies of probed instructions.
 *
 * Slots are carved from read-only executable pages taken from execmem's
 * Kprobes area, which lies within 2 GiB of kernel text so that a copied
 * RIP-relative operand can still reach its target.  Writers go through the
 * text-poking machinery.  A page whose last slot is freed goes back to
 * execmem, unless it is the only page left (kept so that probes coming
 * and going one at a time do not take and give back a page each time).
 * Slots are freed only after an RCU Tasks grace period (register.c), so
 * no task is in a copy of a page that goes; the page itself waits for an
 * RCU grace period more, for the readers of the page list.
 *
 * A page is cut in grains of KPROBE_SLOT_GRAIN bytes.  A slot is a run of
 * grains: it is taken at the largest size an arch may fill
 * (KPROBE_SLOT_SIZE) and trimmed to what the arch did fill, so that a
 * site whose copies are short does not hold the room of the longest.
 * A second bitmap marks where each slot begins, so that freeing needs no
 * size.
 */
#include <linux/bitmap.h>
#include <linux/execmem.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/set_memory.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "internal.h"

/* An arch whose copies all have one size has one grain per slot. */
#ifndef KPROBE_SLOT_GRAIN
#define KPROBE_SLOT_GRAIN	KPROBE_SLOT_SIZE
#endif
#define GRAINS_PER_PAGE		(PAGE_SIZE / KPROBE_SLOT_GRAIN)
#define GRAINS_PER_SLOT		DIV_ROUND_UP(KPROBE_SLOT_SIZE, KPROBE_SLOT_GRAIN)

struct kprobe_slot_page {
	struct list_head node;		/* kprobe_slot_pages, RCU */
	kprobe_opcode_t *base;
	unsigned int used;		/* grains in use */
	DECLARE_BITMAP(busy, GRAINS_PER_PAGE);
	DECLARE_BITMAP(first, GRAINS_PER_PAGE);	/* a slot begins here */
	struct rcu_work free_work;	/* giving the page back */
};

/* Writers hold kprobe_mutex; is_kprobe_insn_slot() reads under RCU. */
static LIST_HEAD(kprobe_slot_pages);

static struct kprobe_slot_page *slot_page_new(void)
{
	struct kprobe_slot_page *sp;

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return NULL;
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	/* The arch's own page, in the state its slot writer expects. */
	sp->base = alloc_insn_page();
	if (!sp->base) {
		kfree(sp);
		return NULL;
	}
#else
	sp->base = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
	if (!sp->base) {
		kfree(sp);
		return NULL;
	}
	/* Fill with breakpoints so that a stray jump into free space traps. */
	memset(sp->base, BREAKPOINT_INSTRUCTION, PAGE_SIZE);
	set_memory_rox((unsigned long)sp->base, 1);
#endif
	list_add_rcu(&sp->node, &kprobe_slot_pages);
	/* perf names addresses in copies and detours (until the page goes). */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)sp->base,
			   PAGE_SIZE, false, "kprobe_insn_page");
	return sp;
}

/* The first free run of a whole slot's grains in @sp, or GRAINS_PER_PAGE. */
static unsigned int slot_page_find(struct kprobe_slot_page *sp)
{
	unsigned long i;

	if (sp->used + GRAINS_PER_SLOT > GRAINS_PER_PAGE)
		return GRAINS_PER_PAGE;
	i = bitmap_find_next_zero_area(sp->busy, GRAINS_PER_PAGE, 0,
				       GRAINS_PER_SLOT, 0);
	return min_t(unsigned long, i, GRAINS_PER_PAGE);
}

/**
 * kprobe_slot_alloc() - take a free executable slot
 *
 * Context: kprobe_mutex held.
 * Return: the slot, KPROBE_SLOT_SIZE bytes (filled with breakpoints where
 * the core fills the pages), or NULL.  kprobe_slot_trim() gives back the
 * part the arch does not fill.
 */
kprobe_opcode_t *kprobe_slot_alloc(void)
{
	struct kprobe_slot_page *sp;
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(sp, &kprobe_slot_pages, node) {
		i = slot_page_find(sp);
		if (i < GRAINS_PER_PAGE)
			goto found;
	}
	sp = slot_page_new();
	if (!sp)
		return NULL;
	i = 0;
found:
	bitmap_set(sp->busy, i, GRAINS_PER_SLOT);
	__set_bit(i, sp->first);
	sp->used += GRAINS_PER_SLOT;
	return (kprobe_opcode_t *)((u8 *)sp->base + i * KPROBE_SLOT_GRAIN);
}

/* The page @slot lies in, and its first grain's index there; or NULL. */
static struct kprobe_slot_page *slot_page_of(kprobe_opcode_t *slot,
					     unsigned int *grain)
{
	struct kprobe_slot_page *sp;

	list_for_each_entry(sp, &kprobe_slot_pages, node) {
		unsigned long off = (u8 *)slot - (u8 *)sp->base;

		if (off >= PAGE_SIZE)
			continue;
		*grain = off / KPROBE_SLOT_GRAIN;
		if (off % KPROBE_SLOT_GRAIN || !test_bit(*grain, sp->first))
			break;
		return sp;
	}
	WARN(1, "kprobes: %p is no slot\n", slot);
	return NULL;
}

/* The number of grains of the slot beginning at grain @i of @sp. */
static unsigned int slot_grains(struct kprobe_slot_page *sp, unsigned int i)
{
	unsigned int n = 1;

	while (i + n < GRAINS_PER_PAGE && test_bit(i + n, sp->busy) &&
	       !test_bit(i + n, sp->first))
		n++;
	return n;
}

/**
 * kprobe_slot_trim() - give back the end of a slot that is not used
 * @slot: a slot from kprobe_slot_alloc(), not trimmed before
 * @size: the bytes at its start that stay in use (at least one)
 *
 * The grains given back are as the copies left them; nothing runs there
 * before a later slot is written over them.  Context: kprobe_mutex held.
 */
void kprobe_slot_trim(kprobe_opcode_t *slot, unsigned int size)
{
	unsigned int i, keep = DIV_ROUND_UP(max(size, 1U), KPROBE_SLOT_GRAIN);
	struct kprobe_slot_page *sp;

	lockdep_assert_held(&kprobe_mutex);
	sp = slot_page_of(slot, &i);
	if (!sp || keep >= GRAINS_PER_SLOT)
		return;
	bitmap_clear(sp->busy, i + keep, GRAINS_PER_SLOT - keep);
	sp->used -= GRAINS_PER_SLOT - keep;
}

/* After a grace period: no reader of the list sees @sp any more. */
static void slot_page_free_work(struct work_struct *work)
{
	struct kprobe_slot_page *sp =
		container_of(to_rcu_work(work), struct kprobe_slot_page, free_work);

	execmem_free(sp->base);
	kfree(sp);
}

/* @sp has no slot in use: give it back, unless it is the last page. */
static void slot_page_release(struct kprobe_slot_page *sp)
{
	if (list_is_singular(&kprobe_slot_pages))
		return;
	list_del_rcu(&sp->node);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)sp->base,
			   PAGE_SIZE, true, "kprobe_insn_page");
	INIT_RCU_WORK(&sp->free_work, slot_page_free_work);
	queue_rcu_work(system_wq, &sp->free_work);
}

/**
 * kprobe_slot_free() - give back a slot
 * @slot: a slot from kprobe_slot_alloc()
 *
 * Context: kprobe_mutex held, and an RCU Tasks grace period has passed
 * since the slot's site left the hash: no CPU can still execute from it,
 * and no task is preempted inside a boost copy or a detour in it.
 */
void kprobe_slot_free(kprobe_opcode_t *slot)
{
	struct kprobe_slot_page *sp;
	unsigned int i, n;

	lockdep_assert_held(&kprobe_mutex);
	sp = slot_page_of(slot, &i);
	if (!sp)
		return;
	/* The stale copy may stay: no CPU or task can be in it any more. */
	n = slot_grains(sp, i);
	__clear_bit(i, sp->first);
	bitmap_clear(sp->busy, i, n);
	sp->used -= n;
	if (!sp->used)
		slot_page_release(sp);
}

/**
 * is_kprobe_insn_slot() - is an address inside the slot pages
 * @addr: a text address
 *
 * For kernel_text_address(): the unwinder and the exception tables must
 * accept an address inside a copy as kernel text.  Any context.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	struct kprobe_slot_page *sp;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &kprobe_slot_pages, node) {
		if (addr - (unsigned long)sp->base < PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/**
 * kprobe_get_kallsym() - the slot pages as symbols for /proc/kallsyms
 * @symnum: index of the symbol asked for
 * @value: the page's address
 * @type: set to 't'
 * @sym: set to "kprobe_insn_page"
 *
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct kprobe_slot_page *sp;
	int ret = -ERANGE;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &kprobe_slot_pages, node) {
		if (symnum--)
			continue;
		*value = (unsigned long)sp->base;
		*type = 't';
		strscpy(sym, "kprobe_insn_page", KSYM_NAME_LEN);
		ret = 0;
		break;
	}
	rcu_read_unlock();
	return ret;
}
