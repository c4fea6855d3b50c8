// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite kprobes_arm64_site_decode: the arm64 site code's decoder and
 * simulations (site.h), checked three ways.
 *
 * - The class of each instruction the paths suite (paths_kunit.c) probes,
 *   in place, so that the exclusive sequence is judged as registration
 *   would judge it.
 * - Each simulation on made-up registers: taken and not taken, the link
 *   register, XZR as a destination, an ADRP from the page it sits in.
 * - A sweep of instruction words, each classified by site_decode.c and by
 *   arm64's own decoder (decode-insn.c, which the classic interface runs):
 *   every word must get the same answer, so that the site code accepts,
 *   refuses and simulates exactly what arm64 does today.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <asm/insn.h>
#include <asm/probes.h>

#include "decode-insn.h"
#include "paths_kunit.h"
#include "simulate-insn.h"
#include "site.h"

static enum kprobe_a64_class class_at(unsigned long addr)
{
	return kprobe_a64_decode((const u32 *)addr);
}

static void classes_of_the_paths_targets(struct kunit *test)
{
	static const struct {
		const unsigned long *at;
		enum kprobe_a64_class class;
	} want[] = {
		{ &kap_add_at, KPROBE_A64_COPY },
		{ &kap_adr_at, KPROBE_A64_ADR },
		{ &kap_adrp_at, KPROBE_A64_ADR },
		{ &kap_ldr_x_at, KPROBE_A64_LDR_LIT },
		{ &kap_ldr_w_at, KPROBE_A64_LDR_LIT },
		{ &kap_ldrsw_at, KPROBE_A64_LDRSW_LIT },
		{ &kap_bcond_at, KPROBE_A64_BCOND },
		{ &kap_cbz_at, KPROBE_A64_CBZ },
		{ &kap_cbnz_w_at, KPROBE_A64_CBZ },
		{ &kap_tbnz_at, KPROBE_A64_TBZ },
		{ &kap_tbz_at, KPROBE_A64_TBZ },
		{ &kap_b_at, KPROBE_A64_B },
		{ &kap_leaf_ret_at, KPROBE_A64_BR },
		{ &kap_bl_at, KPROBE_A64_B },
		{ &kap_blr_at, KPROBE_A64_BR },
		{ &kap_br_at, KPROBE_A64_BR },
		{ &kap_ldp_at, KPROBE_A64_COPY },
		{ &kap_ldr_post_at, KPROBE_A64_COPY },
		{ &kap_str_at, KPROBE_A64_COPY },
		{ &kap_excl_ldxr_at, KPROBE_A64_REFUSED },
		{ &kap_excl_mid_at, KPROBE_A64_REFUSED },
		{ &kap_excl_stxr_at, KPROBE_A64_REFUSED },
		{ &kap_excl_after_at, KPROBE_A64_CBZ },
		{ &kap_msr_daifset_at, KPROBE_A64_REFUSED },
		{ &kap_mrs_daif_at, KPROBE_A64_REFUSED },
		{ &kap_svc_at, KPROBE_A64_REFUSED },
		{ &kap_brk_at, KPROBE_A64_REFUSED },
		{ &kap_eret_at, KPROBE_A64_REFUSED },
		{ &kap_ldr_lit_fp_at, KPROBE_A64_REFUSED },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, class_at(*want[i].at), want[i].class,
				    "target %u, %pS", i, (void *)*want[i].at);
	/* The middle of the pair is an add: only its place refuses it. */
	KUNIT_EXPECT_EQ(test, kprobe_a64_classify(*(u32 *)kap_excl_mid_at),
			KPROBE_A64_COPY);
}

/* Simulate @insn at @pc on @regs; return the PC it leaves. */
static unsigned long sim(u32 insn, unsigned long pc, struct pt_regs *regs)
{
	enum kprobe_a64_class class = kprobe_a64_classify(insn);

	if (WARN_ON(!kprobe_a64_simulated(class)))
		return 0;
	kprobe_a64_simulate(class, insn, pc, regs);
	return instruction_pointer(regs);
}

static void simulations(struct kunit *test)
{
	static const u64 literal[2] __aligned(8) = { 0, 0xfedcba9880000001ULL };
	const unsigned long pc = 0xffff800080123450UL;
	unsigned long lit_pc = (unsigned long)literal;
	struct pt_regs regs = {};

	/* b.ne +8: taken with Z clear, not taken with Z set. */
	KUNIT_EXPECT_EQ(test, sim(0x54000041, pc, &regs), pc + 8);
	regs.pstate = PSR_Z_BIT;
	KUNIT_EXPECT_EQ(test, sim(0x54000041, pc, &regs), pc + 4);
	/* b.gt with N != V: not taken; b.al: taken. */
	regs.pstate = PSR_N_BIT;
	KUNIT_EXPECT_EQ(test, sim(0x5400004c, pc, &regs), pc + 4);
	KUNIT_EXPECT_EQ(test, sim(0x5400004e, pc, &regs), pc + 8);

	/* b -4; bl +0x100 links. */
	KUNIT_EXPECT_EQ(test, sim(0x17ffffff, pc, &regs), pc - 4);
	KUNIT_EXPECT_EQ(test, sim(0x94000040, pc, &regs), pc + 0x100);
	KUNIT_EXPECT_EQ(test, regs.regs[30], pc + 4);

	/* blr x30 goes where x30 was, then links; ret returns to x30. */
	regs.regs[30] = 0x1230;
	KUNIT_EXPECT_EQ(test, sim(0xd63f03c0, pc, &regs), 0x1230UL);
	KUNIT_EXPECT_EQ(test, regs.regs[30], pc + 4);
	KUNIT_EXPECT_EQ(test, sim(0xd65f03c0, pc, &regs), pc + 4);

	/* cbz w3, +16 on a W register whose X is not zero: taken. */
	regs.regs[3] = 0x100000000ULL;
	KUNIT_EXPECT_EQ(test, sim(0x34000083, pc, &regs), pc + 16);
	/* cbz x3 (sf set): not taken. */
	KUNIT_EXPECT_EQ(test, sim(0xb4000083, pc, &regs), pc + 4);

	/* tbnz x5, #63, +12. */
	regs.regs[5] = BIT_ULL(63);
	KUNIT_EXPECT_EQ(test, sim(0xb7f80065, pc, &regs), pc + 12);
	regs.regs[5] = ~BIT_ULL(63);
	KUNIT_EXPECT_EQ(test, sim(0xb7f80065, pc, &regs), pc + 4);

	/* adrp x2, +1 page, from the page the instruction is in. */
	KUNIT_EXPECT_EQ(test, sim(0xb0000002, pc, &regs), pc + 4);
	KUNIT_EXPECT_EQ(test, regs.regs[2], (pc & ~0xfffUL) + 0x1000);
	/* adr x0, -1; adr xzr, +4 writes nothing. */
	sim(0x70ffffe0, pc, &regs);
	KUNIT_EXPECT_EQ(test, regs.regs[0], pc - 1);
	regs.regs[0] = 7;
	sim(0x1000003f, pc, &regs);
	KUNIT_EXPECT_EQ(test, regs.regs[0], 7ULL);

	/* Literal loads 8 bytes on: X whole, W zero-extended, LDRSW signed. */
	KUNIT_EXPECT_EQ(test, sim(0x58000041, lit_pc, &regs), lit_pc + 4);
	KUNIT_EXPECT_EQ(test, regs.regs[1], literal[1]);
	sim(0x18000041, lit_pc, &regs);
	KUNIT_EXPECT_EQ(test, regs.regs[1], (u64)(u32)literal[1]);
	sim(0x98000041, lit_pc, &regs);
	KUNIT_EXPECT_EQ(test, regs.regs[1], (u64)(s64)(s32)literal[1]);
}

/* The class arm64's own decoder gives @insn, as it would for a kprobe. */
static enum kprobe_a64_class arm64_class(u32 insn)
{
	static const struct {
		void *handler;
		enum kprobe_a64_class class;
	} handlers[] = {
		{ simulate_b_cond, KPROBE_A64_BCOND },
		{ simulate_cbz_cbnz, KPROBE_A64_CBZ },
		{ simulate_tbz_tbnz, KPROBE_A64_TBZ },
		{ simulate_adr_adrp, KPROBE_A64_ADR },
		{ simulate_b_bl, KPROBE_A64_B },
		{ simulate_br_blr_ret, KPROBE_A64_BR },
	};
	struct arch_probe_insn api = {};
	unsigned int i;

	/* arm_kprobe_decode_insn()'s own first tests. */
	if (aarch64_insn_is_ldr_lit(insn))
		return KPROBE_A64_LDR_LIT;
	if (aarch64_insn_is_ldrsw_lit(insn))
		return KPROBE_A64_LDRSW_LIT;

	switch (arm_probe_decode_insn(insn, &api)) {
	case INSN_GOOD:
		return KPROBE_A64_COPY;
	case INSN_GOOD_NO_SLOT:
		for (i = 0; i < ARRAY_SIZE(handlers); i++)
			if ((void *)api.handler == handlers[i].handler)
				return handlers[i].class;
		return KPROBE_A64_CLASSES;	/* a handler not known here */
	default:
		return KPROBE_A64_REFUSED;
	}
}

/* A 32-bit mix of @i (a fixed permutation: the sweep is the same each boot). */
static u32 mix(u32 i)
{
	i ^= i >> 16;
	i *= 0x7feb352d;
	i ^= i >> 15;
	i *= 0x846ca68b;
	i ^= i >> 16;
	return i;
}

#define SWEEP_TOP_BITS	17	/* every value of bits 31..15 */

static unsigned int sweep_differ(struct kunit *test, u32 insn,
				 unsigned int *reported)
{
	enum kprobe_a64_class ours = kprobe_a64_classify(insn);
	enum kprobe_a64_class theirs = arm64_class(insn);

	if (ours == theirs)
		return 0;
	if ((*reported)++ < 8)
		kunit_info(test, "%08x: site_decode.c %d, decode-insn.c %d",
			   insn, ours, theirs);
	return 1;
}

static void sweep_agrees_with_arm64(struct kunit *test)
{
	static const u32 words[] = {
		0xd503201f, 0xd503233f, 0xd503245f, 0xd503209f,	/* hints */
		0xd53b4220, 0xd5384100, 0xd5033fdf, 0xd50b7520,	/* mrs, isb, dc */
		0xd65f0bff, 0xd61f0800, 0xd69f03e0, 0xd4000001,	/* auth, eret, svc */
		0xd8000040, 0x1c000040, 0x19000400, 0xc85f7c20,	/* prfm, fp, mops, ldxr */
	};
	unsigned int differ = 0, reported = 0, n = 0;
	u32 i, r, mask, value;

	/* Every value of the high bits, where the classes are told apart... */
	for (i = 0; i < BIT(SWEEP_TOP_BITS); i++, n++)
		differ += sweep_differ(test, (i << (32 - SWEEP_TOP_BITS)) |
				       (mix(i) >> SWEEP_TOP_BITS), &reported);
	/* ... as many words at random over all 32 bits... */
	for (i = 0; i < BIT(SWEEP_TOP_BITS); i++, n++)
		differ += sweep_differ(test, mix(i ^ 0x5a5a5a5a), &reported);
	/* ... each row of the table with its free bits at random... */
	for (r = 0; kprobe_a64_row_pattern(r, &mask, &value); r++) {
		for (i = 0; i < 256; i++, n++)
			differ += sweep_differ(test, value |
					       (mix(r << 8 | i) & ~mask),
					       &reported);
	}
	/* ... and some words named outright. */
	for (r = 0; r < ARRAY_SIZE(words); r++, n++)
		differ += sweep_differ(test, words[r], &reported);
	kunit_info(test, "%u instruction words, %u classified differently",
		   n, differ);
	KUNIT_EXPECT_EQ(test, differ, 0U);
}

static struct kunit_case site_decode_cases[] = {
	KUNIT_CASE(classes_of_the_paths_targets),
	KUNIT_CASE(simulations),
	KUNIT_CASE(sweep_agrees_with_arm64),
	{}
};

static struct kunit_suite site_decode_suite = {
	.name = "kprobes_arm64_site_decode",
	.test_cases = site_decode_cases,
};

kunit_test_suite(site_decode_suite);
