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
 *
 * The pages form pools.  Every architecture has the pool of its copies; a
 * classic architecture with jump optimization (classic_opt.c) has a second
 * one for its detours, whose pages it may place itself (powerpc keeps them
 * in a reserved area of kernel text, within a branch's reach).
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

/*
 * A pool of slot pages.  Writers hold kprobe_mutex; the readers of ->pages
 * (is_kprobe_insn_slot(), kallsyms) hold RCU.
 */
struct kprobe_slot_pool {
	struct list_head pages;		/* struct kprobe_slot_page.node */
	unsigned int grains;		/* per slot as taken; 0: not set up */
	const char *sym;		/* the pages' name in kallsyms and perf */
	void *(*page_alloc)(void);	/* an executable page, or NULL */
	void (*page_free)(void *page);
};

struct kprobe_slot_page {
	struct list_head node;		/* the pool's ->pages, RCU */
	struct kprobe_slot_pool *pool;
	kprobe_opcode_t *base;
	unsigned int used;		/* grains in use */
	DECLARE_BITMAP(busy, GRAINS_PER_PAGE);
	DECLARE_BITMAP(first, GRAINS_PER_PAGE);	/* a slot begins here */
	struct rcu_work free_work;	/* giving the page back */
};

#ifdef CONFIG_KPROBES_CLASSIC_ARCH
/* The arch's own page, in the state its slot writer expects. */
static void *copy_page_alloc(void)
{
	return alloc_insn_page();
}
#else
#ifndef kprobe_slot_page_alloc
/*
 * A page from execmem, filled with breakpoints so that a stray jump into
 * free space traps.  An arch whose breakpoint is no byte, or whose copies
 * must lie near the text they return to, allocates its own
 * (<asm/kprobes.h>).
 */
static void *kprobe_slot_page_alloc(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (!page)
		return NULL;
	memset(page, BREAKPOINT_INSTRUCTION, PAGE_SIZE);
	set_memory_rox((unsigned long)page, 1);
	return page;
}
#endif

static void *copy_page_alloc(void)
{
	return kprobe_slot_page_alloc();
}
#endif

static void copy_page_free(void *page)
{
	execmem_free(page);
}

/* The copies (and x86's detours, which share their slots). */
static struct kprobe_slot_pool copy_pool = {
	.pages		= LIST_HEAD_INIT(copy_pool.pages),
	.grains		= GRAINS_PER_SLOT,
	.sym		= "kprobe_insn_page",
	.page_alloc	= copy_page_alloc,
	.page_free	= copy_page_free,
};

static struct kprobe_slot_page *slot_page_new(struct kprobe_slot_pool *pool)
{
	struct kprobe_slot_page *sp;

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return NULL;
	sp->base = pool->page_alloc();
	if (!sp->base) {
		kfree(sp);
		return NULL;
	}
	sp->pool = pool;
	list_add_rcu(&sp->node, &pool->pages);
	/* perf names addresses in copies and detours (until the page goes). */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)sp->base,
			   PAGE_SIZE, false, pool->sym);
	return sp;
}

/* The first free run of a whole slot's grains in @sp, or GRAINS_PER_PAGE. */
static unsigned int slot_page_find(struct kprobe_slot_page *sp)
{
	unsigned int want = sp->pool->grains;
	unsigned long i;

	if (sp->used + want > GRAINS_PER_PAGE)
		return GRAINS_PER_PAGE;
	i = bitmap_find_next_zero_area(sp->busy, GRAINS_PER_PAGE, 0, want, 0);
	return min_t(unsigned long, i, GRAINS_PER_PAGE);
}

/* A slot of @pool->grains grains; kprobe_mutex held. */
static kprobe_opcode_t *pool_slot_alloc(struct kprobe_slot_pool *pool)
{
	struct kprobe_slot_page *sp;
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(sp, &pool->pages, node) {
		i = slot_page_find(sp);
		if (i < GRAINS_PER_PAGE)
			goto found;
	}
	sp = slot_page_new(pool);
	if (!sp)
		return NULL;
	i = 0;
found:
	bitmap_set(sp->busy, i, pool->grains);
	__set_bit(i, sp->first);
	sp->used += pool->grains;
	return (kprobe_opcode_t *)((u8 *)sp->base + i * KPROBE_SLOT_GRAIN);
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
	return pool_slot_alloc(&copy_pool);
}

/* The page @slot lies in, and its first grain's index there; or NULL. */
static struct kprobe_slot_page *slot_page_of(struct kprobe_slot_pool *pool,
					     kprobe_opcode_t *slot,
					     unsigned int *grain)
{
	struct kprobe_slot_page *sp;

	list_for_each_entry(sp, &pool->pages, node) {
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
	sp = slot_page_of(&copy_pool, slot, &i);
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

	sp->pool->page_free(sp->base);
	kfree(sp);
}

/* @sp has no slot in use: give it back, unless it is the last page. */
static void slot_page_release(struct kprobe_slot_page *sp)
{
	if (list_is_singular(&sp->pool->pages))
		return;
	list_del_rcu(&sp->node);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)sp->base,
			   PAGE_SIZE, true, sp->pool->sym);
	INIT_RCU_WORK(&sp->free_work, slot_page_free_work);
	queue_rcu_work(system_wq, &sp->free_work);
}

/* Give back a slot of @pool; see kprobe_slot_free(). */
static void pool_slot_free(struct kprobe_slot_pool *pool, kprobe_opcode_t *slot)
{
	struct kprobe_slot_page *sp;
	unsigned int i, n;

	lockdep_assert_held(&kprobe_mutex);
	sp = slot_page_of(pool, slot, &i);
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
 * kprobe_slot_free() - give back a slot
 * @slot: a slot from kprobe_slot_alloc()
 *
 * Context: kprobe_mutex held, and an RCU Tasks grace period has passed
 * since the slot's site left the hash: no CPU can still execute from it,
 * and no task is preempted inside a boost copy or a detour in it.
 */
void kprobe_slot_free(kprobe_opcode_t *slot)
{
	pool_slot_free(&copy_pool, slot);
}

/* Is @addr inside one of @pool's pages?  Any context. */
static bool pool_has_addr(struct kprobe_slot_pool *pool, unsigned long addr)
{
	struct kprobe_slot_page *sp;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &pool->pages, node) {
		if (addr - (unsigned long)sp->base < PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
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
	return pool_has_addr(&copy_pool, addr);
}

#ifdef KPROBE_CLASSIC_DETOURS
/*
 * The detours of a classic architecture's jump optimization: pages from
 * its alloc_optinsn_page(), slots of MAX_OPTINSN_SIZE instructions (a
 * size only known at run time: the length of the arch's template).
 */
static struct kprobe_slot_pool detour_pool = {
	.pages		= LIST_HEAD_INIT(detour_pool.pages),
	.sym		= "kprobe_optinsn_page",
	.page_alloc	= alloc_optinsn_page,
	.page_free	= free_optinsn_page,
};

/**
 * kprobe_detour_slot_alloc() - take a slot for a classic arch's detour
 *
 * Context: kprobe_mutex held.
 * Return: MAX_OPTINSN_SIZE instructions' room, or NULL.
 */
kprobe_opcode_t *kprobe_detour_slot_alloc(void)
{
	unsigned int size = MAX_OPTINSN_SIZE * sizeof(kprobe_opcode_t);

	if (!detour_pool.grains)
		detour_pool.grains = DIV_ROUND_UP(size, KPROBE_SLOT_GRAIN);
	if (detour_pool.grains > GRAINS_PER_PAGE)
		return NULL;
	return pool_slot_alloc(&detour_pool);
}

/* Give back a detour's slot; kprobe_mutex held, after RCU Tasks. */
void kprobe_detour_slot_free(kprobe_opcode_t *slot)
{
	pool_slot_free(&detour_pool, slot);
}

/* For kernel_text_address(), as is_kprobe_insn_slot().  Any context. */
bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return pool_has_addr(&detour_pool, addr);
}
#endif

/*
 * The @symnum'th page of @pool as a symbol; else -ERANGE, with @symnum
 * less the pool's pages.
 */
static int pool_get_kallsym(struct kprobe_slot_pool *pool,
			    unsigned int *symnum, unsigned long *value,
			    char *type, char *sym)
{
	struct kprobe_slot_page *sp;
	int ret = -ERANGE;

	rcu_read_lock();
	list_for_each_entry_rcu(sp, &pool->pages, node) {
		if ((*symnum)--)
			continue;
		*value = (unsigned long)sp->base;
		*type = 't';
		strscpy(sym, pool->sym, KSYM_NAME_LEN);
		ret = 0;
		break;
	}
	rcu_read_unlock();
	return ret;
}

/**
 * kprobe_get_kallsym() - the slot pages as symbols for /proc/kallsyms
 * @symnum: index of the symbol asked for
 * @value: the page's address
 * @type: set to 't'
 * @sym: set to "kprobe_insn_page" (or "kprobe_optinsn_page": a classic
 *	architecture's detours)
 *
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	if (!pool_get_kallsym(&copy_pool, &symnum, value, type, sym))
		return 0;
#ifdef KPROBE_CLASSIC_DETOURS
	if (!pool_get_kallsym(&detour_pool, &symnum, value, type, sym))
		return 0;
#endif
	return -ERANGE;
}
