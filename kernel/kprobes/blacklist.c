// SPDX-License-Identifier: GPL-2.0
/*
 * Text that must never carry a breakpoint.
 *
 * - functions marked NOKPROBE_SYMBOL() (the _kprobe_blacklist section);
 * - .kprobes.text: the breakpoint path itself, ours and the trap code's;
 * - noinstr text, which runs where a trap is not survivable (entry before
 *   RCU is watching, idle), and the low-level entry and irq entry text.
 *
 * The NOKPROBE_SYMBOL() functions are turned into address ranges once at
 * boot and kept sorted, so that a lookup is a binary search.
 */
#include <linux/bsearch.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <asm/sections.h>

#include "internal.h"

struct text_range {
	unsigned long start, end;
};

static struct text_range *nokprobe_ranges;
static unsigned int nr_nokprobe_ranges;

/*
 * The sections no probe may go in.  Entry and irqentry text are the site
 * interface's (x86 has both); a classic architecture refuses its own in
 * arch_populate_kprobe_blacklist(), as upstream's do, and most have no
 * such section to name.
 */
static const struct {
	const char *start, *end;
} refused_sections[] = {
	{ __kprobes_text_start, __kprobes_text_end },
	{ __noinstr_text_start, __noinstr_text_end },
#ifndef CONFIG_KPROBES_CLASSIC_ARCH
	{ __entry_text_start, __entry_text_end },
	{ __irqentry_text_start, __irqentry_text_end },
#endif
};

/* The fixed sections, checked before the sorted table. */
static bool within_fixed_sections(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refused_sections); i++)
		if (addr >= (unsigned long)refused_sections[i].start &&
		    addr < (unsigned long)refused_sections[i].end)
			return true;
	return false;
}

static int cmp_range_addr(const void *key, const void *elt)
{
	unsigned long addr = *(const unsigned long *)key;
	const struct text_range *r = elt;

	if (addr < r->start)
		return -1;
	return addr >= r->end ? 1 : 0;
}

static int cmp_range_start(const void *a, const void *b)
{
	const struct text_range *x = a, *y = b;

	if (x->start == y->start)
		return 0;
	return x->start < y->start ? -1 : 1;
}

#ifdef CONFIG_KPROBES_CLASSIC_ARCH
/*
 * The areas an arch adds at boot (arch_populate_kprobe_blacklist()): few,
 * and they may overlap the functions of the sorted table, so they stand
 * apart and are searched in turn.  Written only before the first probe.
 */
static struct text_range *arch_ranges;
static unsigned int nr_arch_ranges, max_arch_ranges;

/**
 * kprobe_add_area_blacklist() - never probe [@start, @end)
 * @start: first address
 * @end: the address past the last
 *
 * For an architecture's arch_populate_kprobe_blacklist(), at boot.
 * Return: 0, or -ENOMEM.
 */
int __init kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	if (nr_arch_ranges == max_arch_ranges) {
		unsigned int n = max(2 * max_arch_ranges, 16U);
		struct text_range *r;

		r = krealloc_array(arch_ranges, n, sizeof(*r), GFP_KERNEL);
		if (!r)
			return -ENOMEM;
		arch_ranges = r;
		max_arch_ranges = n;
	}
	arch_ranges[nr_arch_ranges].start = start;
	arch_ranges[nr_arch_ranges].end = end;
	nr_arch_ranges++;
	return 0;
}

/**
 * kprobe_add_ksym_blacklist() - never probe the function at @entry
 * @entry: an address inside it
 *
 * Return: the function's size, or -EINVAL or -ENOMEM.
 */
int __init kprobe_add_ksym_blacklist(unsigned long entry)
{
	unsigned long size, offset;
	int ret;

	if (!kallsyms_lookup_size_offset(entry, &size, &offset))
		return -EINVAL;
	ret = kprobe_add_area_blacklist(entry - offset, entry - offset + size);
	return ret ? ret : size;
}

static bool within_arch_ranges(unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < nr_arch_ranges; i++)
		if (addr >= arch_ranges[i].start && addr < arch_ranges[i].end)
			return true;
	return arch_within_kprobe_blacklist(addr);
}

int __weak __init arch_populate_kprobe_blacklist(void)
{
	return 0;
}

bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return false;
}
#endif

/* The listed ranges and sections, by address only. */
static bool within_listed_text(unsigned long addr)
{
	if (within_fixed_sections(addr))
		return true;
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	if (within_arch_ranges(addr))
		return true;
#endif
	return bsearch(&addr, nokprobe_ranges, nr_nokprobe_ranges,
		       sizeof(*nokprobe_ranges), cmp_range_addr) != NULL;
}

/*
 * The compiler gives pieces of a function symbols of their own: its
 * unlikely paths moved out of line ("f.cold") and its specialised copies
 * ("f.constprop.0", "f.isra.0", "f.part.0").  They run where f runs, so
 * they are refused when f is.  NOKPROBE_SYMBOL(f) covers f's own range
 * only; the name is what ties the pieces to it.  Where several static
 * functions share the name f, the one kallsyms finds first decides (a
 * walk over all of them may sleep, and kgdb asks with interrupts off).
 * kallsyms_lookup_name() finds a module's f too, whose own rules then
 * decide (kprobe_module_text_forbidden()).
 */
static bool is_listed_function_piece(char *name)
{
	unsigned long whole;
	char *dot;

	dot = strchr(name, '.');
	if (!dot || dot == name)
		return false;
	*dot = '\0';
	whole = kallsyms_lookup_name(name);
	return whole && (within_listed_text(whole) ||
			 kprobe_module_text_forbidden(whole));
}

/*
 * With CALL_PADDING the bytes in front of each function get a symbol,
 * __pfx_<f>: the call depth accounting thunk is written there, and every
 * direct call enters it first.  With kCFI, __cfi_<f> holds the hash that
 * every indirect call checks.  A probe there would be an instruction
 * that is never run as one (or whose bytes are read as data), and a jump
 * over it would break every call of f: the padding is no place for either.
 */
static bool is_padding_symbol(const char *name)
{
	return str_has_prefix(name, "__pfx_") || str_has_prefix(name, "__cfi_");
}

/**
 * within_kprobe_blacklist() - is an address in text that is never probed
 * @addr: a kernel or module text address
 *
 * The kernel's listed sections and NOKPROBE_SYMBOL() functions and their
 * compiler-made pieces, and a module's .kprobes.text, .noinstr.text and
 * NOKPROBE_SYMBOL() functions.  For hw_breakpoint and kgdb too, so it
 * may be called with interrupts off: it takes no lock.
 *
 * Return: true when a probe at @addr must be refused.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (within_listed_text(addr) || kprobe_module_text_forbidden(addr))
		return true;
	return !lookup_symbol_name(addr, name) && is_listed_function_piece(name);
}
EXPORT_SYMBOL_GPL(within_kprobe_blacklist);

/**
 * kprobe_refused_by_name() - do @addr's symbol's name rule out a probe
 * @addr: a kernel or module text address
 *
 * The padding in front of a function, and the pieces of a function that
 * is never probed, with one lookup of the name.
 *
 * Return: true when a probe at @addr must be refused.
 */
bool kprobe_refused_by_name(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (lookup_symbol_name(addr, name))
		return false;
	return is_padding_symbol(name) || is_listed_function_piece(name);
}

/**
 * kprobe_refuses_core_text() - may no probe go at @addr of the kernel image
 * @addr: a core kernel text address
 *
 * Return: true when a probe at @addr must be refused.
 */
bool kprobe_refuses_core_text(unsigned long addr)
{
	return within_listed_text(addr) || kprobe_refused_by_name(addr);
}

/*
 * The blacklist file's line for the function around @addr: its range and
 * its name (with the module's, for module text).  Return: its size, 0 if
 * kallsyms knows no function there.
 */
static unsigned long show_function(struct seq_file *m, bool show_addr,
				   unsigned long addr)
{
	unsigned long size, offset, start;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset) || !size)
		return 0;
	start = addr - offset;
	seq_printf(m, "0x%px-0x%px\t%ps\n",
		   show_addr ? (void *)start : NULL,
		   show_addr ? (void *)(start + size) : NULL, (void *)start);
	return size - offset;
}

/**
 * kprobe_blacklist_show_area() - the blacklist file's lines for a text area
 * @m: the file
 * @show_addr: may the reader see kernel addresses
 * @start: the area's first byte
 * @end: one past its last
 *
 * One line per function in the area, as upstream's file has always listed
 * areas, for the scripts that parse it.  Stops at a byte that no function
 * covers: kallsyms gives every function the room up to the next one.
 */
void kprobe_blacklist_show_area(struct seq_file *m, bool show_addr,
				unsigned long start, unsigned long end)
{
	unsigned long addr, size;

	for (addr = start; addr < end; addr += size) {
		size = show_function(m, show_addr, addr);
		if (!size)
			break;
		cond_resched();
	}
}

/*
 * For debugfs: the NOKPROBE_SYMBOL() functions, then every function of
 * the refused sections, a line each.
 */
void kprobe_blacklist_show(struct seq_file *m, bool show_addr)
{
	unsigned int i;

	for (i = 0; i < nr_nokprobe_ranges; i++)
		show_function(m, show_addr, nokprobe_ranges[i].start);
	for (i = 0; i < ARRAY_SIZE(refused_sections); i++)
		kprobe_blacklist_show_area(m, show_addr,
					   (unsigned long)refused_sections[i].start,
					   (unsigned long)refused_sections[i].end);
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	for (i = 0; i < nr_arch_ranges; i++)
		kprobe_blacklist_show_area(m, show_addr, arch_ranges[i].start,
					   arch_ranges[i].end);
#endif
}

/* Turn the NOKPROBE_SYMBOL() entries into sorted function ranges. */
int __init kprobe_blacklist_init(void)
{
	unsigned long *entry, size, offset;
	unsigned int n = __stop_kprobe_blacklist - __start_kprobe_blacklist;

	nokprobe_ranges = kcalloc(n, sizeof(*nokprobe_ranges), GFP_KERNEL);
	if (!nokprobe_ranges)
		return -ENOMEM;

	for (entry = __start_kprobe_blacklist; entry < __stop_kprobe_blacklist;
	     entry++) {
		if (!kallsyms_lookup_size_offset(*entry, &size, &offset))
			continue;
		nokprobe_ranges[nr_nokprobe_ranges].start = *entry - offset;
		nokprobe_ranges[nr_nokprobe_ranges].end = *entry - offset + size;
		nr_nokprobe_ranges++;
	}
#ifdef CONFIG_KPROBES_CLASSIC_ARCH
	/* The arch's own areas: its exception vectors, its hypervisor text. */
	if (arch_populate_kprobe_blacklist())
		pr_warn("kprobes: the architecture's blacklist is incomplete\n");
#endif
	sort(nokprobe_ranges, nr_nokprobe_ranges, sizeof(*nokprobe_ranges),
	     cmp_range_start, NULL);
	return 0;
}
