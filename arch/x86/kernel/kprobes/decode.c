// SPDX-License-Identifier: GPL-2.0
/*
 * Deciding whether and how an instruction can be probed, and preparing its
 * out-of-line copy.
 *
 * The probed instruction is carried out in one of two ways:
 *
 * - Instructions that transfer control (relative call/jmp/jcc, loop, ret,
 *   indirect call/jmp) are emulated on the registers in the int3 handler.
 *   Executing them from a copy would leave the copy by their own target,
 *   so nothing would regain control after them.
 *
 * - Everything else runs from a copy in an executable slot, followed by a
 *   second int3.  We chose that trailing int3 over the single-step trap:
 *   it needs no #DB handling and does not disturb a debugger's use of TF
 *   or the debug registers, and the copy runs with IF cleared so that no
 *   interrupt can come between the two traps.  A RIP-relative operand is
 *   re-aimed at the original target; the slot lies within 2 GiB of all
 *   kernel text, so the displacement always fits.
 *
 * Instructions that change IF or the privilege level, trap on purpose, or
 * stop the CPU are refused: their copy could not run with IF cleared and
 * come back to the trailing int3.
 */
#include <linux/bug.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/static_call.h>
#include <linux/uaccess.h>
#include <asm/alternative.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

#include "decode.h"

/*
 * Every probed address has a struct kprobe_site, most of them nothing
 * else: keep it within a 128-byte slab object (which is why
 * arch_specific_insn holds byte offsets into the slot, not pointers, and
 * shares the emulation's operands with them).
 */
static_assert(sizeof(struct kprobe_site) <= 128);

/**
 * arch_adjust_kprobe_addr() - the address to probe for symbol + offset
 * @addr: start of the function
 * @offset: offset of the probe into it
 * @on_func_entry: set when the probe is at the function's entry
 *
 * With IBT a function may begin with ENDBR64, which an indirect call must
 * land on: a probe at offset 0 goes on the instruction after it instead.
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	u32 first;
	bool endbr = false;

	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) &&
	    !copy_from_kernel_nofault(&first, (void *)addr, sizeof(first)))
		endbr = is_endbr(first);

	*on_func_entry = !offset || (endbr && offset == ENDBR_INSN_SIZE);
	if (endbr && !offset)
		offset = ENDBR_INSN_SIZE;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Reading the instruction bytes at @addr as the kernel was built: where
 * one of our breakpoints or jumps stands, put back what it replaced.
 *
 * Only two bytes can start something of ours: the int3 of an armed site
 * (or of one whose original byte is not back yet) and the jmp of an
 * optimized one.  So sites are looked up only where the text holds 0xcc
 * or 0xe9, in the bytes read and in the four before them (a jmp there
 * reaches into them).  Decoding a whole function used to look up every
 * byte five times over once any site was optimized, most of what
 * registering a probe cost.
 */

/* Put @site's original bytes over @buf, which holds the text at @addr. */
static void put_back_site(struct kprobe_site *site, unsigned long addr,
			  u8 *buf)
{
	long at = (unsigned long)site->addr - addr;
	unsigned int k, n = site->jumped ? JMP32_INSN_SIZE : INT3_INSN_SIZE;

	/* An ftrace site's bytes are ftrace's, never an int3 of ours. */
	if (site->ftrace)
		return;
	for (k = 0; k < n; k++) {
		if (at + k < 0 || at + k >= MAX_INSN_SIZE)
			continue;
		buf[at + k] = k ? site->ainsn.saved[k - INT3_INSN_SIZE] :
				  site->opcode;
	}
}

static bool may_start_ours(u8 byte)
{
	return byte == INT3_INSN_OPCODE || byte == JMP32_INSN_OPCODE;
}

/*
 * Is the text at @addr ftrace's call site?  As built it is a five-byte
 * nop; it stands as that nop, a call, or ftrace's own int3 while ftrace
 * patches it.  Asked only for those, since ftrace_location() is a search.
 */
static bool at_ftrace_site(unsigned long addr, const u8 *buf)
{
	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE))
		return false;
	if (buf[0] != CALL_INSN_OPCODE && buf[0] != INT3_INSN_OPCODE &&
	    memcmp(buf, x86_nops[CALL_INSN_SIZE], CALL_INSN_SIZE))
		return false;
	return ftrace_location(addr) == addr;
}

static int read_original_bytes(unsigned long addr, u8 *buf)
{
	struct kprobe_site *site;
	u8 before[JMP32_INSN_SIZE - 1];
	unsigned int i, k;

	if (copy_from_kernel_nofault(buf, (void *)addr, MAX_INSN_SIZE))
		return -EFAULT;
	if (at_ftrace_site(addr, buf)) {
		memcpy(buf, x86_nops[CALL_INSN_SIZE], CALL_INSN_SIZE);
		return 0;
	}
	/*
	 * A jmp starting up to four bytes before @addr.  ->armed may be
	 * ahead of the text: the site's bytes are right whatever it says.
	 */
	if (kprobe_nr_jumped &&
	    !copy_from_kernel_nofault(before, (void *)addr - sizeof(before),
				      sizeof(before))) {
		for (k = 0; k < sizeof(before); k++) {
			/* Its int3 comes back first when it is undone. */
			if (!may_start_ours(before[k]))
				continue;
			site = kprobe_site_lookup((kprobe_opcode_t *)addr -
						  sizeof(before) + k);
			if (site && site->jumped)
				put_back_site(site, addr, buf);
		}
	}
	for (i = 0; i < MAX_INSN_SIZE; i++) {
		if (!may_start_ours(buf[i]))
			continue;
		site = kprobe_site_lookup((kprobe_opcode_t *)addr + i);
		if (site)
			put_back_site(site, addr, buf);
	}
	return 0;
}

/* Decode the instruction at @addr as built; its bytes go to @buf. */
int kprobe_decode_original(unsigned long addr, struct insn *insn, u8 *buf)
{
	int ret = read_original_bytes(addr, buf);

	if (ret)
		return ret;
	if (insn_decode(insn, buf, MAX_INSN_SIZE, INSN_MODE_KERN) < 0)
		return -EILSEQ;
	return 0;
}

/*
 * A probe sits only on an instruction boundary of its function, which the
 * function's record knows (func.c; held in *@f until the preparation
 * ends); decode the instruction at the site into @insn, its bytes into @buf.
 */
static int decode_at_boundary(struct kprobe_site *site, struct kprobe_func **f,
			      struct insn *insn, u8 *buf)
{
	unsigned long addr = (unsigned long)site->addr;
	struct kprobe_func *func = kprobe_func_get(addr);

	if (IS_ERR(func))
		return PTR_ERR(func);
	*f = func;
	return kprobe_func_boundary(func, addr) ?:
	       kprobe_decode_original(addr, insn, buf);
}

/*
 * Is it an instruction that raises an exception by design (int3, int n,
 * into, int1, ud0, ud1, ud2)?  Such a place is no instruction to probe:
 * -EILSEQ, as upstream answers, except for the ud2 of a BUG() or WARN(),
 * which upstream refuses with -EINVAL before it decodes anything.
 */
static bool kprobe_insn_traps(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	if (op == 0x0f)
		return insn->opcode.bytes[1] == 0x0b ||	/* ud2 */
		       insn->opcode.bytes[1] == 0xb9 ||	/* ud1 */
		       insn->opcode.bytes[1] == 0xff;	/* ud0 */
	return op == 0xcc || op == 0xcd || op == 0xce || op == 0xf1;
}

/* Is the instruction refused outright? */
bool kprobe_insn_refused(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	if (kprobe_insn_traps(insn))
		return true;
	if (op == 0x0f) {
		switch (insn->opcode.bytes[1]) {
		case 0x05:	/* syscall */
		case 0x07:	/* sysret */
		case 0x34:	/* sysenter */
		case 0x35:	/* sysexit */
			return true;
		}
		return false;
	}
	switch (op) {
	case 0x8e:		/* mov to a segment register */
		/*
		 * %ds, %es, %fs and %gs run from a copy as in place (upstream
		 * steps them too).  A load of %ss holds off interrupts and the
		 * step's debug trap for one instruction; %cs is #UD.
		 */
		return X86_MODRM_REG(insn->modrm.bytes[0]) == 2 ||
		       X86_MODRM_REG(insn->modrm.bytes[0]) == 1;
	case 0x9a:		/* far call */
	case 0xca: case 0xcb:	/* far ret */
	case 0xcf:		/* iret */
	case 0xea:		/* far jmp */
	case 0xf4:		/* hlt: would never wake with IF cleared */
		return true;
	}
	return false;
}

bool kprobe_insn_has_addr_size_prefix(struct insn *insn)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p)
		if (p == 0x67)
			return true;
	return false;
}

/* Record how an indirect call/jmp finds its target. */
static int classify_indirect(struct insn *insn, struct arch_specific_insn *ai)
{
	if (insn_is_rex2(insn) || kprobe_insn_has_addr_size_prefix(insn))
		return -EINVAL;
	ai->modrm = insn->modrm.bytes[0];
	ai->sib = insn->sib.nbytes ? insn->sib.bytes[0] : 0;
	ai->rex = insn->rex_prefix.nbytes ? insn->rex_prefix.bytes[0] : 0;
	ai->disp = insn->displacement.value;
	ai->disp_rip = insn_rip_relative(insn);
	return 0;
}

/* The ud2 of a BUG() or WARN(): the bug table has its address. */
static bool is_bug_ud2(struct insn *insn, kprobe_opcode_t *addr)
{
#ifdef CONFIG_GENERIC_BUG
	if (insn->opcode.bytes[0] == 0x0f && insn->opcode.bytes[1] == 0x0b)
		return !!find_bug((unsigned long)addr);
#endif
	return false;
}

/* Decide ai->kind and the emulation parameters. */
static int classify(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op = insn->opcode.bytes[0];

	if (kprobe_insn_traps(insn))
		return -EILSEQ;
	if (kprobe_insn_refused(insn))
		return -EINVAL;

	ai->kind = KPROBE_INSN_STEP;
	ai->rel = insn->immediate.value;
	if (op == 0x0f) {
		if ((insn->opcode.bytes[1] & 0xf0) == 0x80) {
			ai->kind = KPROBE_INSN_JCC;
			ai->cc = insn->opcode.bytes[1] & 0x0f;
		}
		return 0;
	}
	switch (op) {
	case 0x70 ... 0x7f:
		ai->kind = KPROBE_INSN_JCC;
		ai->cc = op & 0x0f;
		break;
	case 0xe0 ... 0xe3:
		if (kprobe_insn_has_addr_size_prefix(insn))
			return -EINVAL;	/* would count in %ecx */
		ai->kind = KPROBE_INSN_LOOP;
		ai->cc = op & 0x03;
		break;
	case 0xe8:
		ai->kind = KPROBE_INSN_CALL;
		break;
	case 0xe9: case 0xeb:
		ai->kind = KPROBE_INSN_JMP;
		break;
	case 0xc2: case 0xc3:
		ai->kind = KPROBE_INSN_RET;
		ai->imm = op == 0xc2 ? insn->immediate.value : 0;
		break;
	case 0x9c:
		ai->kind = KPROBE_INSN_STEP_PUSHF;
		break;
	case 0x9d: case 0xfa: case 0xfb:
		/*
		 * popf, cli, sti change IF, which the copies run with cleared:
		 * emulated on the regs the trap returns to.  A prefixed one
		 * (popfw) is not the kernel's.
		 */
		if (insn->length != 1)
			return -EINVAL;
		ai->kind = KPROBE_INSN_IF_CHANGE;
		ai->cc = op;
		break;
	case 0xff:
		switch (X86_MODRM_REG(insn->modrm.bytes[0])) {
		case 2:
			ai->kind = KPROBE_INSN_CALL_IND;
			return classify_indirect(insn, ai);
		case 4:
			ai->kind = KPROBE_INSN_JMP_IND;
			return classify_indirect(insn, ai);
		case 3: case 5:		/* far forms */
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/*
 * Is the instruction text that other patching owns: jump labels and static
 * calls (the core's sorted table), or SMP alternatives' lock prefixes?
 */
bool kprobe_text_owned_elsewhere(kprobe_opcode_t *addr, unsigned int len)
{
	void *end = addr + len - 1;
	bool ret;

	if (kprobe_text_reserved(addr, len))
		return true;

	mutex_lock(&text_mutex);
	ret = alternatives_text_reserved(addr, end);
	mutex_unlock(&text_mutex);
	return ret;
}

/* Build the copy in @buf: the instruction re-aimed for @slot, then int3. */
static int build_copy(struct kprobe_site *site, struct insn *insn, u8 *buf,
		      kprobe_opcode_t *slot)
{
	unsigned int len = insn->length;

	if (insn_rip_relative(insn)) {
		s64 disp = (s64)insn->displacement.value +
			   ((long)site->addr - (long)slot);
		s32 disp32 = disp;

		if (disp32 != disp)
			return -ERANGE;
		memcpy(buf + insn_offset_displacement(insn), &disp32,
		       sizeof(disp32));
	}
	buf[len] = INT3_INSN_OPCODE;
	return 0;
}

/**
 * arch_prepare_kprobe_site() - check and prepare the instruction at a site
 * @site: a new site; ->addr set
 *
 * Context: kprobe_mutex held.
 * Return: 0; -EILSEQ when ->addr is not on an instruction boundary, does
 * not decode, or is an instruction that traps by design (int3, int n,
 * ud0/1/2); -EINVAL when the instruction is refused, is a BUG()'s or
 * WARN()'s ud2, or its text belongs to other patching; -ENOMEM when no
 * slot is left.
 */
int arch_prepare_kprobe_site(struct kprobe_site *site)
{
	struct arch_specific_insn *ai = &site->ainsn;
	u8 buf[KPROBE_SLOT_SIZE] = { };
	struct kprobe_func *f = NULL;
	kprobe_opcode_t *slot;
	struct insn insn;
	int ret, used;

	/*
	 * A byte of a jump label's or a static call's site: refused before
	 * the boundary is asked, as upstream does (-EINVAL, not -EILSEQ,
	 * inside such an instruction).
	 */
	if (kprobe_text_reserved(site->addr, 1))
		return -EINVAL;
	ret = decode_at_boundary(site, &f, &insn, buf);
	if (ret)
		goto out;
	/*
	 * BUG() and WARN() are ud2 on x86, which classify() refuses: the
	 * bug table, a long walk, is asked only about a ud2, and such a
	 * place is refused with -EINVAL, as upstream refuses it.
	 */
	ret = classify(&insn, ai);
	if (ret == -EILSEQ && is_bug_ud2(&insn, site->addr))
		ret = -EINVAL;
	if (ret)
		goto out;
	/* Another text writer's instruction (see kprobe_text_owned_elsewhere()). */
	ret = -EINVAL;
	if (kprobe_text_owned_elsewhere(site->addr, insn.length))
		goto out;

	ai->len = insn.length;
	site->opcode = buf[0];
	ret = 0;
	if (ai->kind != KPROBE_INSN_STEP && ai->kind != KPROBE_INSN_STEP_PUSHF)
		goto out;	/* emulated: no copy */

	ret = -ENOMEM;
	slot = kprobe_slot_alloc();
	if (!slot)
		goto out;
	ret = build_copy(site, &insn, buf, slot);
	if (ret) {
		kprobe_slot_free(slot);
		goto out;
	}
	used = kprobe_prepare_fast_paths(site, f, &insn, buf, slot);
	text_poke_copy(slot, buf, used);
	kprobe_slot_trim(slot, used);
	ai->insn = slot;
	ret = 0;
out:
	/* Only the preparation asks the function's record. */
	kprobe_func_put(f);
	return ret;
}

/**
 * arch_prepare_kprobe_ftrace_site() - prepare a site at an ftrace location
 * @site: a new site at the fentry call of a function
 *
 * ftrace reaches its handlers (ftrace_handler.c), so nothing is copied.  Only a
 * jprobe comes back through the int3 path, which then skips the call:
 * ftrace has already called every ops of the function on the way in.
 *
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace_site(struct kprobe_site *site)
{
	site->ainsn.kind = KPROBE_INSN_SKIP;
	site->ainsn.len = CALL_INSN_SIZE;	/* the call to __fentry__ */
	site->opcode = *site->addr;
	return 0;
}

/**
 * arch_remove_kprobe_site() - release what arch_prepare_kprobe_site() took
 * @site: a site no CPU or task can be in any more (an RCU Tasks grace
 *        period has passed, register.c)
 */
void arch_remove_kprobe_site(struct kprobe_site *site)
{
	if (site->ainsn.insn)
		kprobe_slot_free(site->ainsn.insn);
	site->ainsn.insn = NULL;
}

/**
 * arch_kprobe_text_gone() - text went away
 *
 * Forget the functions decoded for preparing sites (func.c): other code
 * may come to the same addresses.  Context: kprobe_mutex held.
 */
void arch_kprobe_text_gone(void)
{
	kprobe_func_forget();
}
