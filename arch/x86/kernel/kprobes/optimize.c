// SPDX-License-Identifier: GPL-2.0
/*
 * The fast ways to a probe: boosting and jump optimization.
 *
 * Boosting.  After the pre_handlers, the int3 path normally sends the CPU
 * to a copy of the instruction followed by a second int3.  When no probe at
 * the site needs anything after the instruction (a post_handler, a
 * fault_handler, a jprobe), the CPU can instead go to a copy followed by a
 * jump back: one trap per hit instead of two.  The copy then runs with the
 * caller's IF, so it may be interrupted or preempted there, and a fault in
 * it would find no exception-table entry: instructions with one are never
 * boosted, and slots are only reused after an RCU Tasks grace period.
 *
 * Jump optimization.  The site's first JMP32_INSN_SIZE or more bytes (the
 * region, whole instructions) are replaced by a jmp to the site's detour:
 * a head that saves a pt_regs and calls the handlers (detour_template.S),
 * then a copy of the region, then a jump back behind it.  This is only
 * safe when
 *   - the region lies inside one function;
 *   - that function has no indirect jump (a jump table could land inside
 *     the region) and no exception-table entry (a fixup could, and a fault
 *     in the copy would not be found);
 *   - no jump or call of the function lands inside the region except on
 *     its first byte;
 *   - every instruction of the region can run elsewhere: no call, loop,
 *     indirect or far transfer; relative jumps are re-encoded with a
 *     32-bit displacement to the same target, RIP-relative operands are
 *     re-aimed; a near ret leaves the copy for the caller, as it would
 *     have left the function (upstream's optimizer copies it too),
 *     written as the kernel writes its own: through the return thunk
 *     where the CPU wants one, else followed by an int3;
 *   - nobody else patches those bytes (jump labels, static calls,
 *     alternatives, ftrace) and no other probe sits inside.
 * The detour's copy of the region is also what the int3 path boosts to
 * while the site waits for its jump, or has it undone, or is kept from it
 * by the sysctl.  So a site with a detour has no boost copy: only while
 * another site is inside its region, and the region copy would skip that
 * one, are its breakpoint hits stepped.
 *
 * Everything here that writes runs under kprobe_mutex and text_mutex.
 */
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <asm/alternative.h>
#include <asm/nospec-branch.h>
#include <asm/text-patching.h>

#include "decode.h"

extern const u8 kprobe_detour_template[], kprobe_detour_template_clac[],
		kprobe_detour_template_ip[],
		kprobe_detour_template_site[], kprobe_detour_template_call[],
		kprobe_detour_template_end[];

/* Sites with a jmp in the text; read_original_bytes() looks only then. */
unsigned int kprobe_nr_jumped;

static void put_rel32(u8 *where, unsigned long from_next, unsigned long to)
{
	s32 rel = (s32)(to - from_next);

	memcpy(where, &rel, sizeof(rel));
}

static bool rel32_reaches(unsigned long from_next, unsigned long to)
{
	long d = (long)(to - from_next);

	return d == (s32)d;
}

/* Write "jmp @to" at @buf, which will run at @at. */
static void put_jmp(u8 *buf, unsigned long at, unsigned long to)
{
	buf[0] = JMP32_INSN_OPCODE;
	put_rel32(buf + 1, at + JMP32_INSN_SIZE, to);
}

/*
 * Copy the instruction @insn (bytes @src, from text address @from) to @dst,
 * which will run at @at, aiming a RIP-relative operand at the same place.
 */
static int copy_reaimed(struct insn *insn, const u8 *src, unsigned long from,
			u8 *dst, unsigned long at)
{
	memcpy(dst, src, insn->length);
	if (insn_rip_relative(insn)) {
		unsigned long target = from + insn->length +
				       (long)insn->displacement.value;
		s64 disp = (s64)target - (s64)(at + insn->length);
		s32 disp32 = disp;

		if (disp != disp32)
			return -ERANGE;
		memcpy(dst + insn_offset_displacement(insn), &disp32,
		       sizeof(disp32));
	}
	return insn->length;
}

/*
 * Put a region's near ret at @dst (running at @at) as the kernel writes its
 * own (apply_returns()): a jmp to the return thunk where the CPU wants one
 * at that address (with ITS, a ret in the lower half of a cacheline), else
 * the ret followed by an int3, which ends straight-line speculation past
 * it.  A ret with an immediate has no thunk form: refused where thunks are
 * wanted at all.  Return: bytes written, or -errno.
 */
static int put_ret(struct insn *insn, const u8 *src, u8 *dst, unsigned long at)
{
	unsigned long thunk = (unsigned long)x86_return_thunk;

	if (cpu_wants_rethunk() &&
	    (insn->opcode.bytes[0] != RET_INSN_OPCODE || insn->prefixes.nbytes))
		return -EINVAL;
	if (cpu_wants_rethunk_at((void *)at)) {
		if (!rel32_reaches(at + JMP32_INSN_SIZE, thunk))
			return -ERANGE;
		put_jmp(dst, at, thunk);
		return JMP32_INSN_SIZE;
	}
	memcpy(dst, src, insn->length);
	dst[insn->length] = INT3_INSN_OPCODE;
	return insn->length + INT3_INSN_SIZE;
}

/*
 * Put the copy of one region instruction at @dst (running at @at): copied
 * as it is, or re-encoded when it is a relative jump.  *@target gets the
 * jump's target (0 when none).  Return: bytes written, or -errno when the
 * instruction cannot run elsewhere.
 */
static int relocate_one(struct insn *insn, const u8 *src, unsigned long from,
			u8 *dst, unsigned long at, unsigned long *target)
{
	u8 op = insn->opcode.bytes[0];
	unsigned int reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	*target = 0;
	if (kprobe_insn_refused(insn) || insn_is_rex2(insn))
		return -EINVAL;
	switch (op) {
	case 0xe8:				/* call */
	case 0xe0 ... 0xe3:			/* loop, jrcxz */
		return -EINVAL;
	case 0xff:
		if (reg >= 2 && reg <= 5)	/* indirect call/jmp */
			return -EINVAL;
		break;
	case 0x70 ... 0x7f: case 0xe9: case 0xeb: case 0x0f:
		*target = kprobe_relative_target(insn, from);
		if (!*target)
			break;			/* another 0f opcode */
		if (kprobe_insn_has_addr_size_prefix(insn) ||
		    insn->prefixes.nbytes)
			return -EINVAL;
		if (op == 0xe9 || op == 0xeb) {
			if (!rel32_reaches(at + JMP32_INSN_SIZE, *target))
				return -ERANGE;
			put_jmp(dst, at, *target);
			return JMP32_INSN_SIZE;
		}
		dst[0] = 0x0f;			/* jcc rel32 */
		dst[1] = 0x80 | (op == 0x0f ? insn->opcode.bytes[1] & 0x0f :
					      op & 0x0f);
		if (!rel32_reaches(at + 6, *target))
			return -ERANGE;
		put_rel32(dst + 2, at + 6, *target);
		return 6;
	case 0xc2: case 0xc3:			/* ret */
		return put_ret(insn, src, dst, at);
	}
	return copy_reaimed(insn, src, from, dst, at);
}

/*
 * Copy the region starting at the site to @dst (running at @at), followed
 * by the jump back; its length goes to ai->region_len.  Return: the bytes
 * written, or -errno.
 */
static int copy_region(struct kprobe_site *site, u8 *dst, unsigned long at,
		       size_t room)
{
	unsigned long addr = (unsigned long)site->addr, target;
	unsigned int off = 0, n = 0;
	unsigned long targets[JMP32_INSN_SIZE];
	unsigned int nt = 0, i;
	u8 src[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	while (off < JMP32_INSN_SIZE) {
		ret = kprobe_decode_original(addr + off, &insn, src);
		if (ret)
			return ret;
		/* A BUG()'s or WARN()'s ud2 is refused by relocate_one(). */
		if (n + max_t(unsigned int, insn.length, 6) + JMP32_INSN_SIZE > room)
			return -E2BIG;
		ret = relocate_one(&insn, src, addr + off, dst + n, at + n,
				   &target);
		if (ret < 0)
			return ret;
		if (target)
			targets[nt++] = target;
		n += ret;
		off += insn.length;
	}
	/* A jump of the region itself must leave it (or restart it). */
	for (i = 0; i < nt; i++)
		if (targets[i] > addr && targets[i] < addr + off)
			return -EINVAL;
	if (!rel32_reaches(at + n + JMP32_INSN_SIZE, addr + off))
		return -ERANGE;
	put_jmp(dst + n, at + n, addr + off);
	site->ainsn.region_len = off;
	return n + JMP32_INSN_SIZE;
}

/* The function-wide rules (see the top of this file), from its record @f. */
static int check_function(struct kprobe_site *site, struct kprobe_func *f)
{
	if (!f)
		return -EINVAL;
	return kprobe_func_may_jump(f, (unsigned long)site->addr,
				    site->ainsn.region_len);
}

/* Is the region text that someone else patches? */
static bool region_owned_elsewhere(struct kprobe_site *site)
{
	kprobe_opcode_t *addr = site->addr;
	unsigned int len = site->ainsn.region_len;

	return kprobe_text_owned_elsewhere(addr, len) ||
	       ftrace_text_reserved(addr, addr + len - 1);
}

/*
 * Copy the head (detour_template.S) to @d, which will run at @at, for
 * @site with regs->ip @regs_ip, calling @callback.  Return: its length,
 * or -ERANGE when something is out of reach.
 */
static int put_head(u8 *d, unsigned long at, struct kprobe_site *site,
		    unsigned long regs_ip, void *callback)
{
	size_t head = kprobe_detour_template_end - kprobe_detour_template;
	size_t call = kprobe_detour_template_call - kprobe_detour_template;
	size_t arg = kprobe_detour_template_site - kprobe_detour_template;
	size_t ip = kprobe_detour_template_ip - kprobe_detour_template;
	unsigned long site_ptr = (unsigned long)site;	/* a movabs or a movl */
	s32 ip32 = regs_ip;

	/*
	 * With call depth tracking, a call must go through the callee's
	 * accounting thunk, or its return unbalances the count.  The lookup
	 * may write the thunk: text_mutex (taken inside kprobe_mutex, as
	 * every text write of ours does).
	 */
	mutex_lock(&text_mutex);
	callback = callthunks_translate_call_dest(callback);
	mutex_unlock(&text_mutex);

	if ((long)ip32 != (long)regs_ip ||
	    !rel32_reaches(at + call + 4, (unsigned long)callback))
		return -ERANGE;
	memcpy(d, kprobe_detour_template, head);
	memcpy(d + arg, &site_ptr, sizeof(site_ptr));
	memcpy(d + ip, &ip32, sizeof(ip32));
	put_rel32(d + call, at + call + 4, (unsigned long)callback);
	if (cpu_feature_enabled(X86_FEATURE_SMAP))
		memcpy(d + (kprobe_detour_template_clac - kprobe_detour_template),
		       "\x0f\x01\xca", 3);
	return head;
}

/*
 * Build the detour at @buf + KPROBE_DETOUR_OFFSET for a slot at @slot; @f
 * is the function's record.  Return: the end of what was written, or
 * -errno when the site cannot be optimized.
 */
static int build_detour(struct kprobe_site *site, struct kprobe_func *f,
			u8 *buf, kprobe_opcode_t *slot)
{
	unsigned long at = (unsigned long)slot + KPROBE_DETOUR_OFFSET;
	u8 *d = buf + KPROBE_DETOUR_OFFSET;
	int head, ret;

	if (!rel32_reaches((unsigned long)site->addr + JMP32_INSN_SIZE, at))
		return -ERANGE;
	head = put_head(d, at, site, (unsigned long)site->addr + INT3_INSN_SIZE,
			kprobe_detour_callback);
	if (head < 0)
		return head;
	/* ->region_off is a byte (asm/kprobes.h). */
	if (KPROBE_DETOUR_OFFSET + head > U8_MAX)
		return -E2BIG;
	ret = copy_region(site, d + head, at + head,
			  KPROBE_SLOT_SIZE - KPROBE_DETOUR_OFFSET - head);
	if (ret < 0)
		return ret;
	if (region_owned_elsewhere(site) || check_function(site, f))
		return -EINVAL;
	site->ainsn.region_off = KPROBE_DETOUR_OFFSET + head;
	return KPROBE_DETOUR_OFFSET + head + ret;
}

/*
 * Copy the probed instruction to @b (running at @at), re-aimed.  Only
 * instructions without an exception-table entry: a fault in the copy must
 * be able to meet its fixup, and only the step copy is mapped back.
 * Return: its length, or -errno.
 */
static int put_insn_copy(struct kprobe_site *site, u8 *b, unsigned long at)
{
	unsigned long addr = (unsigned long)site->addr;
	u8 src[MAX_INSN_SIZE];
	struct insn orig;
	int ret;

	if (search_exception_tables(addr))
		return -EINVAL;
	ret = kprobe_decode_original(addr, &orig, src);
	if (ret)
		return ret;
	return copy_reaimed(&orig, src, addr, b, at);
}

/* Build the boost copy at @buf + KPROBE_BOOST_OFFSET; 0 or -errno. */
static int build_boost(struct kprobe_site *site, struct insn *insn,
		       u8 *buf, kprobe_opcode_t *slot)
{
	unsigned long at = (unsigned long)slot + KPROBE_BOOST_OFFSET;
	u8 *b = buf + KPROBE_BOOST_OFFSET;
	int len;

	if (insn->length + JMP32_INSN_SIZE > KPROBE_BOOST_SIZE)
		return -E2BIG;
	len = put_insn_copy(site, b, at);
	if (len < 0)
		return len;
	put_jmp(b + len, at + len, (unsigned long)site->addr + len);
	site->ainsn.fast |= KPROBE_HAS_BOOST;
	return 0;
}

/*
 * Build the post copy at @buf + @off: the instruction, a head calling
 * kprobe_post_callback() with regs->ip behind the original instruction,
 * the jump back.  Return: the end of what was written, or -errno.
 */
static int build_post(struct kprobe_site *site, struct insn *insn,
		      u8 *buf, kprobe_opcode_t *slot, unsigned int off)
{
	unsigned long at = (unsigned long)slot + off;
	unsigned long next = (unsigned long)site->addr + insn->length;
	u8 *b = buf + off;
	int len, head;

	/*
	 * The head is written before its length is known to fit; ->post_off
	 * is a byte (asm/kprobes.h).
	 */
	if (off > U8_MAX || off + MAX_INSN_SIZE + (kprobe_detour_template_end -
				   kprobe_detour_template) +
	    JMP32_INSN_SIZE > KPROBE_SLOT_SIZE)
		return -E2BIG;
	len = put_insn_copy(site, b, at);
	if (len < 0)
		return len;
	head = put_head(b + len, at + len, site, next, kprobe_post_callback);
	if (head < 0)
		return head;
	put_jmp(b + len + head, at + len + head, next);
	site->ainsn.post_off = off;
	return off + len + head + JMP32_INSN_SIZE;
}

/**
 * kprobe_prepare_fast_paths() - boost copy, detour and post copy of a site
 * @site: the new site; its step copy is at the start of @buf already
 * @f: the record of its function (func.c)
 * @insn: the decoded probed instruction
 * @buf: the slot's future contents
 * @slot: where @buf will be copied
 *
 * Any fast path may be missing; the site then keeps a slower one.  The
 * post copy is built only for a site whose first probe has a
 * post_handler (->posted): a post_handler that comes later is run after
 * the step copy's trap instead.
 * Return: how many bytes of @buf are in use.
 */
int kprobe_prepare_fast_paths(struct kprobe_site *site, struct kprobe_func *f,
			      struct insn *insn, u8 *buf, kprobe_opcode_t *slot)
{
	struct arch_specific_insn *ai = &site->ainsn;
	int used = KPROBE_BOOST_OFFSET, ret;
	u8 orig[MAX_INSN_SIZE];
	struct insn first;

	ai->fast = 0;
	ai->region_len = 0;
	ai->region_off = 0;
	ai->post_off = 0;
	/* The bytes as built, even where other probes' int3s or jmps are. */
	if (kprobe_decode_original((unsigned long)site->addr, &first, orig))
		return used;
	memcpy(ai->saved, orig + INT3_INSN_SIZE, sizeof(ai->saved));

	/* The detour, or in its place the boost copy (asm/kprobes.h). */
	ret = build_detour(site, f, buf, slot);
	if (ret > 0) {
		used = ret;
	} else {
		ai->region_off = 0;
		ai->region_len = 0;
		memset(buf + KPROBE_DETOUR_OFFSET, 0,
		       KPROBE_SLOT_SIZE - KPROBE_DETOUR_OFFSET);
		if (!build_boost(site, insn, buf, slot))
			used = KPROBE_BOOST_OFFSET + KPROBE_BOOST_SIZE;
	}
	if (site->posted) {
		ret = build_post(site, insn, buf, slot, used);
		if (ret > 0)
			used = ret;
	}
	return used;
}

/* Bytes the detour stands for, 0 when the site cannot be optimized. */
unsigned int arch_kprobe_region_len(struct kprobe_site *site)
{
	return kprobe_region_len(&site->ainsn);
}

/*
 * Replace each site's int3 by a jmp to its detour, in one batch of
 * text_poke_queue(): a CPU reaching a site mid-way is sent on by
 * poke_int3_handler() as if the jmp were there.  Empties @sites.
 * Context: kprobe_mutex held; tasks have been waited out of the regions.
 */
void arch_optimize_sites(struct list_head *sites)
{
	struct kprobe_site *site, *tmp;
	u8 jmp[JMP32_INSN_SIZE];

	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, sites, opt_list) {
		put_jmp(jmp, (unsigned long)site->addr,
			(unsigned long)kprobe_detour(&site->ainsn));
		text_poke_queue(site->addr, jmp, JMP32_INSN_SIZE, NULL);
		site->jumped = true;
		kprobe_site_update_flux(site);
		kprobe_nr_jumped++;
		list_del_init(&site->opt_list);
	}
	text_poke_finish();
	mutex_unlock(&text_mutex);
}

/*
 * Sites unoptimized per round of unjump_batch(): each round costs two
 * text syncs, an IPI to every CPU each.  Their pokes go to text_poke_vec()
 * in chunks of POKES_PER_VEC, which bounds how long it keeps IRQs off.
 */
#define UNJUMP_BATCH	512
#define POKES_PER_VEC	64

/* text_mutex serialises their use. */
static struct kprobe_site *unjump_sites[UNJUMP_BATCH];
static struct text_poke_vec unjump_vec[2 * POKES_PER_VEC];

/* Write the int3 of each of @sites[0..@n). */
static void poke_int3s(struct kprobe_site **sites, unsigned int n)
{
	static const u8 int3 = INT3_INSN_OPCODE;
	unsigned int i, nv = 0;

	for (i = 0; i < n; i++) {
		unjump_vec[nv].addr = sites[i]->addr;
		unjump_vec[nv].opcode = &int3;
		unjump_vec[nv++].len = INT3_INSN_SIZE;
		if (nv == POKES_PER_VEC) {
			kprobe_poke_vec(unjump_vec, nv);
			nv = 0;
		}
	}
	kprobe_poke_vec(unjump_vec, nv);
}

/* Write back the four bytes behind each int3 (a page boundary splits some). */
static void poke_tails(struct kprobe_site **sites, unsigned int n)
{
	unsigned long tail, split;
	unsigned int i, nv = 0;

	for (i = 0; i < n; i++) {
		tail = (unsigned long)sites[i]->addr + INT3_INSN_SIZE;
		split = min(PAGE_ALIGN(tail + 1),
			    tail + JMP32_INSN_SIZE - INT3_INSN_SIZE);
		unjump_vec[nv].addr = (void *)tail;
		unjump_vec[nv].opcode = &sites[i]->ainsn.saved[0];
		unjump_vec[nv++].len = split - tail;
		if (split - tail < JMP32_INSN_SIZE - INT3_INSN_SIZE) {
			/* The jmp straddles a page boundary. */
			unjump_vec[nv].addr = (void *)split;
			unjump_vec[nv].opcode = &sites[i]->ainsn.saved[split - tail];
			unjump_vec[nv++].len = JMP32_INSN_SIZE - INT3_INSN_SIZE -
					       (split - tail);
		}
		if (nv >= POKES_PER_VEC) {
			kprobe_poke_vec(unjump_vec, nv);
			nv = 0;
		}
	}
	kprobe_poke_vec(unjump_vec, nv);
}

/*
 * Put int3 and the original bytes back in place of the jmps of @sites[]:
 * first the int3s, so that a CPU arriving now traps to the site (which is
 * still hashed) instead of taking the jump; a sync, after which no CPU is
 * in the middle of an old jmp; then the other four bytes, which nothing
 * executes any more.  text_poke_bp() would not do: it wants a whole
 * instruction, and int3 plus four stray bytes is not one.
 */
static void unjump_batch(struct kprobe_site **sites, unsigned int n)
{
	unsigned int i;

	poke_int3s(sites, n);
	text_poke_sync();
	poke_tails(sites, n);
	text_poke_sync();
	for (i = 0; i < n; i++)
		arch_kprobe_drop_jump(sites[i]);
}

/*
 * Undo the jumps of @sites (emptied).  A task already inside a detour
 * finishes there; the detour stays until the site is freed.
 * Context: kprobe_mutex held.
 */
void arch_unoptimize_sites(struct list_head *sites)
{
	struct kprobe_site *site, *tmp;
	unsigned int n = 0;

	mutex_lock(&text_mutex);
	list_for_each_entry_safe(site, tmp, sites, opt_list) {
		list_del_init(&site->opt_list);
		if (!site->jumped)
			continue;
		unjump_sites[n++] = site;
		if (n == UNJUMP_BATCH) {
			unjump_batch(unjump_sites, n);
			n = 0;
		}
	}
	if (n)
		unjump_batch(unjump_sites, n);
	mutex_unlock(&text_mutex);
}

/*
 * The jmp is no longer in the text (or the text is gone): called after the
 * last text sync of the undoing, so that a CPU that sees ->in_flux clear
 * may return into the original bytes.
 */
void arch_kprobe_drop_jump(struct kprobe_site *site)
{
	if (site->jumped) {
		site->jumped = false;
		kprobe_site_update_flux(site);
		kprobe_nr_jumped--;
	}
}

/**
 * kprobe_detour_callback() - the handlers of an optimized site
 * @site: the site, as built into its detour
 * @regs: the registers the detour's head saved
 *
 * Called from the detour in whatever context reached the site.  Handlers
 * see regs->ip just past the probed address, as from a breakpoint (the
 * head put it there), regs->ss the kernel's, and run with preemption off,
 * as upstream's optimized probes do.  A pre_handler cannot
 * redirect execution from here: the detour always goes on with the copied
 * region.
 *
 * Lean on purpose, since it runs on every hit (a site with one or two
 * probes takes ->single, no list walk): no probe of an optimized site has a
 * post_handler, a fault_handler or a jprobe (those keep the site on the
 * int3 path), so neither the step stack nor kprobe_status matter here; a
 * hit from inside a handler, or from an NMI during one, is caught by
 * current_kprobe and only counted.
 *
 * Except in passing: a probe that needs the int3 path joins the list
 * before the jmp is undone, and hits meanwhile still come here.  Such a
 * probe's hits are counted as missed (->single leaves it out, and so does
 * kprobe_site_pre_handlers_passing()): a pre_handler whose post_handler never follows,
 * or whose fault would reach no fault_handler, breaks upstream's contract
 * (upstream undoes the jump before the probe joins); a jprobe must not
 * run at all, since its handler would be entered from here with
 * interrupts off in the saved flags and never come back through
 * jprobe_return()'s trap.
 */
__visible void __kprobes kprobe_detour_callback(struct kprobe_site *site,
						struct pt_regs *regs)
{
	struct kprobe *p;

	/* The head filled that slot with the sp; handlers see the kernel's ss */
	regs->ss = __KERNEL_DS;
	preempt_disable();
	/*
	 * The usual case, one probe (or two, through the pair's handler):
	 * no list walk, and nothing to keep across the handler's call, so
	 * no register is saved for it.
	 */
	p = rcu_dereference_sched(site->single);
	if (likely(p && !kprobe_running())) {
		__this_cpu_write(current_kprobe, p);
		p->pre_handler(p, regs);
		__this_cpu_write(current_kprobe, NULL);
	} else {
		kprobe_site_pre_handlers_passing(site, regs, false);
	}
	preempt_enable();
}
