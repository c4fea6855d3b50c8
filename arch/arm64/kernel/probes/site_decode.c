// SPDX-License-Identifier: GPL-2.0
/*
 * Which arm64 instructions a probe may sit on, and how each is carried out
 * (site.h).  One table, read top to bottom, the first matching row wins:
 * a row is a mask and a value over the instruction word, with an optional
 * test of the fields the mask cannot express.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <asm/insn.h>
#include <asm/sysreg.h>

#include "site.h"

struct kprobe_a64_row {
	u32 mask;
	u32 value;
	enum kprobe_a64_class class;
	bool (*also)(u32 insn);	/* NULL, or must hold for the row to match */
};

/* MRS of DAIF: from a slot it would read the masks of the trap, not ours. */
static bool mrs_reads_daif(u32 insn)
{
	return aarch64_insn_extract_system_reg(insn) ==
	       AARCH64_INSN_SPCLREG_DAIF;
}

/*
 * Hints whose effect does not depend on where they run (NOP, the pointer
 * authentication of the link register, BTI); any other hint may trap or
 * wait for an event, and is refused.
 */
static bool hint_runs_anywhere(u32 insn)
{
	return aarch64_insn_is_steppable_hint(insn);
}

#define ROW(m, v, c)		{ .mask = (m), .value = (v), .class = (c) }
#define ROW_IF(m, v, c, f)	{ .mask = (m), .value = (v), .class = (c), .also = (f) }

static const struct kprobe_a64_row kprobe_a64_rows[] = {
	/* Loads relative to the PC: simulated, the slot is elsewhere. */
	ROW(0xbf000000, 0x18000000, KPROBE_A64_LDR_LIT),	/* LDR Wt/Xt, label */
	ROW(0xff000000, 0x98000000, KPROBE_A64_LDRSW_LIT),
	ROW(0x1f000000, 0x10000000, KPROBE_A64_ADR),		/* ADR, ADRP */
	ROW(0xff000000, 0xd8000000, KPROBE_A64_REFUSED),	/* PRFM label */
	ROW(0x3f000000, 0x1c000000, KPROBE_A64_REFUSED),	/* LDR St/Dt/Qt, label */

	/* Branches: simulated, each computes from the PC or writes it. */
	ROW(0xff000000, 0x54000000, KPROBE_A64_BCOND),		/* B.cond, BC.cond */
	ROW(0x7e000000, 0x34000000, KPROBE_A64_CBZ),		/* CBZ, CBNZ */
	ROW(0x7e000000, 0x36000000, KPROBE_A64_TBZ),		/* TBZ, TBNZ */
	ROW(0x7c000000, 0x14000000, KPROBE_A64_B),		/* B, BL */
	ROW(0xffdffc1f, 0xd61f0000, KPROBE_A64_BR),		/* BR, BLR */
	ROW(0xfffffc1f, 0xd65f0000, KPROBE_A64_BR),		/* RET */
	/* ... but those that authenticate the target are refused. */
	ROW(0xfedff800, 0xd61f0800, KPROBE_A64_REFUSED),	/* BRA*, BLRA* */
	ROW(0xfffffbff, 0xd65f0bff, KPROBE_A64_REFUSED),	/* RETAA, RETAB */

	/* Exception generation and return: a trap inside the probe's trap. */
	ROW(0xff000000, 0xd4000000, KPROBE_A64_REFUSED),	/* SVC, HVC, BRK... */
	ROW(0xffffffff, 0xd69f03e0, KPROBE_A64_REFUSED),	/* ERET */
	ROW(0xfffffbff, 0xd69f0bff, KPROBE_A64_REFUSED),	/* ERETAA, ERETAB */

	/* System registers: writes change state a step cannot undo. */
	ROW(0xfff8f01f, 0xd500401f, KPROBE_A64_REFUSED),	/* MSR (immediate) */
	ROW(0xfff00000, 0xd5100000, KPROBE_A64_REFUSED),	/* MSR (register) */
	ROW_IF(0xfff00000, 0xd5300000, KPROBE_A64_REFUSED, mrs_reads_daif),
	ROW_IF(0xfffff01f, 0xd503201f, KPROBE_A64_COPY, hint_runs_anywhere),
	ROW(0xfffff01f, 0xd503201f, KPROBE_A64_REFUSED),	/* other hints */
	/* The rest of the branch and system group (barriers, MRS...) copies. */
	ROW(0x1c000000, 0x14000000, KPROBE_A64_COPY),

	/*
	 * Exclusives would lose their monitor to the trap and retry forever;
	 * the memory copy and set triples must stay three in a row.
	 */
	ROW(0x3f800000, 0x08000000, KPROBE_A64_REFUSED),	/* LDXR, STXR... */
	ROW(0x3b200c00, 0x19000400, KPROBE_A64_REFUSED),	/* CPY*, SET* */

	/* Everything else computes from registers and memory only. */
	ROW(0x00000000, 0x00000000, KPROBE_A64_COPY),
};

enum kprobe_a64_class kprobe_a64_classify(u32 insn)
{
	const struct kprobe_a64_row *row;

	for (row = kprobe_a64_rows; ; row++) {
		if ((insn & row->mask) == row->value &&
		    (!row->also || row->also(insn)))
			return row->class;
	}
}

#ifdef CONFIG_KPROBES_KUNIT_TEST
/* Row @i's mask and value, for site_decode_kunit.c's sweep; false past the end. */
bool kprobe_a64_row_pattern(unsigned int i, u32 *mask, u32 *value)
{
	if (i >= ARRAY_SIZE(kprobe_a64_rows))
		return false;
	*mask = kprobe_a64_rows[i].mask;
	*value = kprobe_a64_rows[i].value;
	return true;
}
#endif

/* How far back a load-exclusive may open the sequence @addr would be in. */
#define KPROBE_A64_EXCLUSIVE_LOOKBACK	32

/*
 * Is @addr inside a load-exclusive/store-exclusive sequence?  Walk back
 * from the word before it, no further than its function's first word
 * (where kallsyms knows the function; where it does not, the words before
 * may be data, and nothing is refused for them).  The first exclusive met
 * decides: a store closes the sequence before @addr, a load opens one.
 */
static bool kprobe_a64_in_exclusive(const u32 *addr)
{
	unsigned long size, offset, back;
	unsigned long i;

	if (!kallsyms_lookup_size_offset((unsigned long)addr, &size, &offset))
		return false;
	back = min_t(unsigned long, offset / sizeof(u32),
		     KPROBE_A64_EXCLUSIVE_LOOKBACK);

	for (i = 1; i <= back; i++) {
		u32 insn = le32_to_cpu(addr[-(long)i]);

		if (aarch64_insn_is_store_ex(insn))
			return false;
		if (aarch64_insn_is_load_ex(insn))
			return true;
	}
	return false;
}

enum kprobe_a64_class kprobe_a64_decode(const u32 *addr)
{
	enum kprobe_a64_class class = kprobe_a64_classify(le32_to_cpu(*addr));

	if (class != KPROBE_A64_REFUSED && kprobe_a64_in_exclusive(addr))
		return KPROBE_A64_REFUSED;
	return class;
}
