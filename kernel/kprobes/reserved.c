// SPDX-License-Identifier: GPL-2.0
/*
 * Text that other patching owns: the sites of jump labels and of inline
 * static calls, and static calls' trampolines.  Their next update would
 * overwrite a breakpoint put there, or a copy of the old bytes (a detour's,
 * a step's, the byte a disarm writes back) would go stale, so no probe and
 * no optimized region may cover them.
 *
 * The kernel answers the question itself (jump_label_text_reserved(),
 * static_call_text_reserved()), but by walking every entry of the core
 * kernel's tables, which are sorted by key and hold thousands of entries:
 * asked twice for every new probe (its instruction, then its region), that
 * walk was most of what registering a probe cost.  The core kernel's
 * tables never change after boot, so at the first question their sites
 * are copied into one array sorted by address, and every question after
 * that is a binary search.  A module's sites are looked up in that
 * module's own tables, which are short.
 *
 * Everything here runs under kprobe_mutex, which also guards the array.
 * The jump tables are read under jump_label_lock(), as the kernel's own
 * functions do: x86 reads a jump label's size from its text, which is an
 * int3 for a moment while the key changes.
 */
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call.h>

#include "internal.h"

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/* The core kernel's inline static call sites (the linker's section bounds). */
extern struct static_call_site __start_static_call_sites[],
			       __stop_static_call_sites[];

static unsigned long static_call_site_addr(const struct static_call_site *s)
{
	return (unsigned long)&s->addr + s->addr;
}
#endif

/* The longest site: a jump label's jmp or a static call's call. */
#define MAX_RESERVED_LEN	8

/*
 * One reserved byte range of the core kernel, [start, start + len), and
 * where a jump label's jump goes when its key is on (0 for a call).
 */
struct reserved_range {
	unsigned long start;
	unsigned long target;
	unsigned int len;
};

static struct reserved_range *core_ranges;
static unsigned int nr_core_ranges;
/* Building the array failed once: ask the kernel's functions instead. */
static bool core_ranges_failed;

static int cmp_range_start(const void *a, const void *b)
{
	const struct reserved_range *x = a, *y = b;

	if (x->start == y->start)
		return 0;
	return x->start < y->start ? -1 : 1;
}

static unsigned int nr_core_sites(void)
{
	unsigned int n = 0;

#ifdef CONFIG_JUMP_LABEL
	n += __stop___jump_table - __start___jump_table;
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	n += __stop_static_call_sites - __start_static_call_sites;
#endif
	return n;
}

/*
 * Copy the core kernel's sites and sort them.  Init text's count while it
 * is there (a probe can go there until it is freed); a table built later
 * leaves out the jump labels of freed init text.
 */
static bool build_core_ranges(void)
{
	bool init_text_alive __maybe_unused = system_state < SYSTEM_FREEING_INITMEM;
	unsigned int n = nr_core_sites(), i = 0;
	struct reserved_range *r;

	if (!n)
		return true;
	r = kvmalloc_array(n, sizeof(*r), GFP_KERNEL);
	if (!r)
		return false;
#ifdef CONFIG_JUMP_LABEL
	{
		struct jump_entry *e;

		jump_label_lock();
		for (e = __start___jump_table; e < __stop___jump_table; e++) {
			/* Its size is read from its text: none once freed. */
			if (jump_entry_is_init(e) && !init_text_alive)
				continue;
			r[i].start = jump_entry_code(e);
			r[i].target = jump_entry_target(e);
			r[i++].len = jump_entry_size(e);
		}
		jump_label_unlock();
	}
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	{
		struct static_call_site *s;

		for (s = __start_static_call_sites;
		     s < __stop_static_call_sites; s++) {
			r[i].start = static_call_site_addr(s);
			r[i].target = 0;
			r[i++].len = CALL_INSN_SIZE;
		}
	}
#endif
	sort(r, i, sizeof(*r), cmp_range_start, NULL);
	core_ranges = r;
	nr_core_ranges = i;
	return true;
}

/*
 * The core kernel's array, built at the first question.  Return: false
 * when building it failed (then and every time after): ask the kernel.
 */
static bool have_core_ranges(void)
{
	if (!core_ranges && !core_ranges_failed && !build_core_ranges())
		core_ranges_failed = true;
	return !core_ranges_failed;
}

/* The index of the first core range starting at or after @addr. */
static unsigned int first_range_from(unsigned long addr)
{
	unsigned int lo = 0, hi = nr_core_ranges, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (core_ranges[mid].start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does a core kernel site overlap [start, end)?  Binary search. */
static bool core_range_overlaps(unsigned long start, unsigned long end)
{
	/* The first range starting at or after @end bounds the candidates. */
	unsigned int lo = first_range_from(end);

	/*
	 * Every range before that starts below @end; none is longer than
	 * MAX_RESERVED_LEN, so only the last few can still reach @start.
	 */
	while (lo-- > 0) {
		const struct reserved_range *r = &core_ranges[lo];

		if (r->start + r->len > start)
			return true;
		if (r->start + MAX_RESERVED_LEN <= start)
			break;
	}
	return false;
}

#ifdef CONFIG_MODULES
/*
 * Does a site of @mod overlap [start, end)?  Its tables are short.  Its
 * init text's sites count only while that text is there (as the kernel's
 * own check has it): their size is read from the text.
 */
static bool module_sites_overlap(struct module *mod, unsigned long start,
				 unsigned long end)
{
	/* Without jump labels or inline static calls, nothing is read. */
	bool init __maybe_unused = mod->state == MODULE_STATE_COMING;
	bool ret = false;
	unsigned long a __maybe_unused;
	unsigned int i __maybe_unused;

#ifdef CONFIG_JUMP_LABEL
	jump_label_lock();
	for (i = 0; i < mod->num_jump_entries && !ret; i++) {
		struct jump_entry *e = &mod->jump_entries[i];

		if (jump_entry_is_init(e) && !init)
			continue;
		a = jump_entry_code(e);
		ret = a < end && a + jump_entry_size(e) > start;
	}
	jump_label_unlock();
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	for (i = 0; i < mod->num_static_call_sites && !ret; i++) {
		a = static_call_site_addr(&mod->static_call_sites[i]);
		ret = a < end && a + CALL_INSN_SIZE > start;
	}
#endif
	return ret;
}

/* The jump label targets of @mod's sites in [start, end); see below. */
static unsigned int module_jump_targets(struct module *mod, unsigned long start,
					unsigned long end, unsigned long *out,
					unsigned int max)
{
	unsigned int i __maybe_unused, n = 0;

#ifdef CONFIG_JUMP_LABEL
	for (i = 0; i < mod->num_jump_entries && n < max; i++) {
		struct jump_entry *e = &mod->jump_entries[i];
		unsigned long a = jump_entry_code(e);

		if (a >= start && a < end)
			out[n++] = jump_entry_target(e);
	}
#endif
	return n;
}
#endif

#ifdef CONFIG_MODULES
/*
 * The module whose text holds @addr.  It cannot go meanwhile: the caller
 * holds a reference (registration takes one before preparing a site), so
 * the lookup alone needs preemption off, and the tables can be read with
 * jump_label_lock(), which sleeps.
 */
static struct module *text_module(unsigned long addr)
{
	struct module *mod;

	preempt_disable();
	mod = __module_text_address(addr);
	preempt_enable();
	return mod;
}
#endif

#ifdef CONFIG_HAVE_STATIC_CALL
/*
 * A static call's trampoline is a jump to the call's function that
 * static_call_update() rewrites in place, to another function or to a
 * return.  The kernel's own check (static_call_text_reserved()) knows the
 * sites that call through it, not the trampoline: a probe there would
 * later step or jump through a copy of the old jump, and its disarm would
 * write the old first byte over a return.
 *
 * Each trampoline is a function of its own, named for its call
 * (STATIC_CALL_TRAMP_PREFIX), which kallsyms knows.  Where the linker
 * gathers the core kernel's into one section (x86), its bounds answer
 * without a lookup; elsewhere (ppc32 keeps them in .text) they are weak
 * and equal.
 */
extern char __static_call_text_start[] __weak, __static_call_text_end[] __weak;

static bool is_trampoline(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	return !lookup_symbol_name(addr, name) &&
	       !strncmp(name, STATIC_CALL_TRAMP_PREFIX_STR,
			STATIC_CALL_TRAMP_PREFIX_LEN);
}

/*
 * Callers ask about one instruction or one optimized region, which never
 * reaches past its function: a trampoline they overlap holds their first
 * or their last byte.
 */
static bool trampolines_overlap(unsigned long start, unsigned long end,
				bool core)
{
	unsigned long s = (unsigned long)__static_call_text_start;
	unsigned long e = (unsigned long)__static_call_text_end;

	if (core && s != e)
		return start < e && end > s;
	return is_trampoline(start) || is_trampoline(end - 1);
}
#else
static bool trampolines_overlap(unsigned long start, unsigned long end,
				bool core)
{
	return false;
}
#endif

/* The kernel's own answer, walking every table; the fallback. */
static bool kernel_says_reserved(void *start, void *last)
{
	bool ret;

	jump_label_lock();
	ret = jump_label_text_reserved(start, last) ||
	      static_call_text_reserved(start, last);
	jump_label_unlock();
	return ret;
}

/**
 * kprobe_text_reserved() - do jump labels or static calls own these bytes
 * @addr: the first byte
 * @len: how many
 *
 * Context: kprobe_mutex held; module text is held by a reference (the
 * caller's, as registration takes one).
 * Return: true when any of the @len bytes is a jump label's or an inline
 * static call's site, or a static call's trampoline.
 */
bool kprobe_text_reserved(kprobe_opcode_t *addr, unsigned int len)
{
	unsigned long start = (unsigned long)addr, end = start + len;
	bool ret = false;

	lockdep_assert_held(&kprobe_mutex);
	if (core_kernel_text(start)) {
		if (trampolines_overlap(start, end, true))
			return true;
		if (!have_core_ranges())
			return kernel_says_reserved(addr, (void *)end - 1);
		return core_range_overlaps(start, end);
	}
#ifdef CONFIG_MODULES
	{
		struct module *mod = text_module(start);

		if (mod)
			ret = module_sites_overlap(mod, start, end) ||
			      trampolines_overlap(start, end, false);
	}
#endif
	return ret;
}

/**
 * kprobe_jump_label_targets() - where the jump labels of some text jump to
 * @start: the first byte of the text (a function)
 * @end: the byte after it
 * @out: the targets, in no order
 * @max: room in @out
 *
 * A jump label is a nop while its key is off and a jmp while it is on:
 * decoding the text finds its target only in the second state.  The
 * optimizer must know it in both, or a region that the jump lands in
 * could take a jmp while the key is off.
 *
 * Context: kprobe_mutex held, module text held by a reference.
 * Return: how many targets were written.
 */
unsigned int kprobe_jump_label_targets(unsigned long start, unsigned long end,
				       unsigned long *out, unsigned int max)
{
	unsigned int lo, n = 0;

	lockdep_assert_held(&kprobe_mutex);
	if (core_kernel_text(start)) {
		/* Without the array none are known: only decoded ones count. */
		if (!have_core_ranges())
			return 0;
		for (lo = first_range_from(start);
		     lo < nr_core_ranges && core_ranges[lo].start < end &&
		     n < max; lo++)
			if (core_ranges[lo].target)
				out[n++] = core_ranges[lo].target;
		return n;
	}
#ifdef CONFIG_MODULES
	{
		struct module *mod = text_module(start);

		if (mod)
			n = module_jump_targets(mod, start, end, out, max);
	}
#endif
	return n;
}
