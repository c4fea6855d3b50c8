// SPDX-License-Identifier: GPL-2.0
/*
 * What a probed function's instructions say, learnt once per function.
 *
 * A new site asks two questions of its whole function: is its address an
 * instruction boundary (decoding from the function's first byte), and may
 * its region take a jump (no indirect jump, no exception-table entry, no
 * jump of the function into the region; optimize.c).  Asked afresh for every
 * probe, that decoded the function once per probe and twice for most of
 * them, and a batch with a probe on each instruction of a function decoded
 * it once per instruction.  So the first site of a function decodes it
 * once, as built, into a record: a bitmap of its instruction boundaries,
 * the sorted targets of its relative jumps and calls that land inside it,
 * and whether anything rules out a jump anywhere in it.  Later sites of
 * the same function read the record.
 *
 * A record is only needed while sites are prepared: each preparation
 * takes a reference and drops it when done.  Records nobody holds stay in
 * a small cache, the most recently used FUNC_IDLE_MAX of them, so that
 * the probes of one function registered one by one decode it once, while
 * a thousand probes on a thousand functions keep no record each: the
 * records went with their sites before, some 200 bytes per probe.  Text
 * that goes away (a module, its init text, the kernel's) empties the
 * cache (kprobe_func_forget()), so that a function that comes back at the
 * same address is decoded afresh.
 *
 * The text a record describes is the kernel as built: our own int3s and
 * jumps are read through (decode.c), and whatever else patches a function
 * after boot keeps its instruction boundaries (jump labels, static calls,
 * ftrace write instructions of the lengths they replace).  The function
 * is decoded under text_mutex, so that none of them is half-written
 * meanwhile (an int3 of theirs would read as a one-byte instruction), and
 * a jump label's target counts whether its key is on or off now.  kgdb
 * writes its breakpoints without text_mutex, and keeps them for as long
 * as the debugger wants: the decode stops at one (what it hides cannot be
 * read, so a probe there or behind it is refused, as upstream does), and
 * the record is not cached, so that the function is decoded afresh once
 * the breakpoint has gone.
 *
 * Everything here runs under kprobe_mutex, which guards the records.
 */
#include <linux/extable.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/kgdb.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/nospec-branch.h>
#include <asm/text-patching.h>

#include "decode.h"

/* Is the int3 at @addr one of kgdb's, over the first byte of an instruction? */
static bool kgdb_int3(unsigned long addr, struct insn *insn)
{
#ifdef CONFIG_KGDB
	return insn->opcode.bytes[0] == INT3_INSN_OPCODE &&
	       kgdb_has_hit_break(addr);
#else
	return false;
#endif
}

struct kprobe_func {
	struct hlist_node node;		/* in func_hash */
	struct list_head idle;		/* in func_idle while ->users == 0 */
	unsigned long	start;		/* the function's first byte */
	unsigned int	size;		/* its length, from kallsyms */
	unsigned int	decoded;	/* bytes decoded: all but an undecodable tail */
	unsigned int	users;		/* preparations holding the record */
	bool		uncached;	/* read with a breakpoint of kgdb's in it */
	int		no_jump;	/* 0, or why no region may take a jump */
	unsigned int	nr_targets;
	u32		*targets;	/* sorted offsets, into the same block */
	unsigned long	bounds[];	/* bit n: an instruction starts at n */
};

#define FUNC_HASH_BITS	5
static DEFINE_HASHTABLE(func_hash, FUNC_HASH_BITS);

/* Records no preparation holds, least recently used first. */
#define FUNC_IDLE_MAX	32
static LIST_HEAD(func_idle);
static unsigned int nr_idle;

/**
 * kprobe_relative_target() - where a relative jmp, jcc, call or loop goes
 * @insn: the decoded instruction
 * @ip: its address
 *
 * Return: the target, or 0 for any other instruction.
 */
unsigned long kprobe_relative_target(struct insn *insn, unsigned long ip)
{
	u8 op = insn->opcode.bytes[0];

	switch (op) {
	case 0x70 ... 0x7f: case 0xe0 ... 0xe3:
	case 0xe8: case 0xe9: case 0xeb:
		break;
	case 0x0f:
		if ((insn->opcode.bytes[1] & 0xf0) != 0x80)
			return 0;
		break;
	default:
		return 0;
	}
	return ip + insn->length + (long)insn->immediate.value;
}

/* An indirect jump could land anywhere in the function, a region too. */
static bool is_indirect_jump(struct insn *insn, unsigned long ip)
{
	unsigned int reg = X86_MODRM_REG(insn->modrm.bytes[0]);

	if (insn->opcode.bytes[0] == 0xff && (reg == 4 || reg == 5))
		return true;
	if (insn->opcode.bytes[0] == 0xea)
		return true;
#ifdef CONFIG_MITIGATION_RETPOLINE
	/* With retpolines, jmp *%reg is a jump to a thunk. */
	if (kprobe_relative_target(insn, ip) -
	    (unsigned long)__x86_indirect_thunk_array <
	    RETPOLINE_THUNK_SIZE * 16)
		return true;
#endif
	return false;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Room for decoding one function, taken for the decode and given back
 * right after: the record is then allocated at its exact size.  A jump,
 * call or jump label is at least two bytes, so the function's own targets
 * number at most (size + 1) / 2 (the last may run past its end) and its
 * jump labels' at most size / 2: size in all.  Kept between decodes,
 * it held on to the room of the largest function ever probed (8 MB for a
 * 1 MB symbol) for as long as any record lived.
 */
struct func_scratch {
	unsigned long	*bounds;	/* BITS_TO_LONGS(size) */
	unsigned long	*labels;	/* size / 2 */
	u32		targets[];	/* size */
};

static struct func_scratch *scratch_alloc(unsigned long size)
{
	/* One long more for aligning ->bounds. */
	unsigned long words = BITS_TO_LONGS(size), nl = size / 2 + 1;
	struct func_scratch *sc;

	sc = kvmalloc(size_add(struct_size(sc, targets, size),
			       array_size(words + nl, sizeof(long))),
		      GFP_KERNEL);
	if (!sc)
		return NULL;
	/* After the u32s, rounded up to longs. */
	sc->bounds = (unsigned long *)ALIGN((unsigned long)&sc->targets[size],
					     sizeof(long));
	sc->labels = sc->bounds + words;
	return sc;
}

/*
 * A run of this many int3s is padding, after which kallsyms may still
 * count a long stretch to the symbol (1 MB behind srso_alias_return_thunk).
 * The decode stops there.  When only int3s follow up to the end, that is
 * all: the function ends in fill.  Otherwise what follows counts as
 * undecodable: a probe there is refused, and no region takes a jump.
 * Within a function's code an int3 stands alone (behind a ret or jmp,
 * against straight-line speculation), or in a few dozen of alignment.
 */
#define FUNC_PADDING_RUN	64

/*
 * Decode the function at @start into the scratch room: boundaries, the
 * targets that land inside it (at most one per byte), whether a jump is
 * ruled out (undecodable text counts only when nothing else did), and
 * whether kgdb's breakpoint stopped the decode (*@kgdb).
 * Return: the bytes decoded.
 */
static unsigned long func_decode(struct func_scratch *sc, unsigned long start,
				 unsigned long size, unsigned int *nr_targets,
				 int *no_jump, bool *kgdb)
{
	unsigned long cur = start, end = start + size, to;
	unsigned int int3s = 0;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	bitmap_zero(sc->bounds, size);
	*nr_targets = 0;
	*no_jump = 0;
	*kgdb = false;
	for (; cur < end; cur += insn.length) {
		if (kprobe_decode_original(cur, &insn, buf)) {
			*no_jump = *no_jump ?: -EILSEQ;
			break;
		}
		if (kgdb_int3(cur, &insn)) {
			*no_jump = *no_jump ?: -EILSEQ;
			*kgdb = true;
			break;
		}
		__set_bit(cur - start, sc->bounds);
		int3s = insn.opcode.bytes[0] == INT3_INSN_OPCODE ? int3s + 1 : 0;
		if (int3s == FUNC_PADDING_RUN) {
			cur += insn.length;
			/* Read as is: no probe or jump of ours stands in fill. */
			if (memchr_inv((void *)cur, INT3_INSN_OPCODE, end - cur))
				*no_jump = *no_jump ?: -EILSEQ;
			break;
		}
		if (search_exception_tables(cur) || is_indirect_jump(&insn, cur))
			*no_jump = -EINVAL;
		to = kprobe_relative_target(&insn, cur);
		if (to > start && to < end)
			sc->targets[(*nr_targets)++] = to - start;
	}
	return min(cur, end) - start;
}

/*
 * Add the targets of the function's jump labels (a jump label site is at
 * least two bytes, so at most size / 2 of them), whatever their keys say.
 */
static unsigned int add_label_targets(struct func_scratch *sc,
				      unsigned long start, unsigned long size,
				      unsigned int nr)
{
	unsigned int i, n;

	n = kprobe_jump_label_targets(start, start + size, sc->labels,
				      size / 2);
	for (i = 0; i < n; i++)
		if (sc->labels[i] > start && sc->labels[i] < start + size)
			sc->targets[nr++] = sc->labels[i] - start;
	return nr;
}

static struct kprobe_func *func_find(unsigned long start, unsigned long size)
{
	struct kprobe_func *f;

	hash_for_each_possible(func_hash, f, node, start)
		if (f->start == start && f->size == size)
			return f;
	return NULL;
}

/**
 * kprobe_func_get() - the record of the function around an address
 * @addr: an address in kernel or module text
 *
 * Decodes the function the first time.  Context: kprobe_mutex held.
 * Return: the record, with a reference for the caller; ERR_PTR(-EINVAL)
 * when kallsyms knows no function there, ERR_PTR(-ENOMEM).
 */
struct kprobe_func *kprobe_func_get(unsigned long addr)
{
	unsigned long size, offset, words, decoded;
	struct func_scratch *sc;
	unsigned int nr;
	struct kprobe_func *f;
	bool kgdb;
	int no_jump;

	if (!kallsyms_lookup_size_offset(addr, &size, &offset) || !size ||
	    size > U32_MAX)
		return ERR_PTR(-EINVAL);
	/*
	 * No record can describe other code at this place: text that goes
	 * empties the cache first (kprobe_func_forget()).
	 */
	f = func_find(addr - offset, size);
	if (f) {
		if (!f->users++) {
			list_del(&f->idle);
			nr_idle--;
		}
		return f;
	}
	sc = scratch_alloc(size);
	if (!sc)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&text_mutex);
	decoded = func_decode(sc, addr - offset, size, &nr, &no_jump, &kgdb);
	mutex_unlock(&text_mutex);
	/* Not under text_mutex: jump_label_lock() nests outside it. */
	nr = add_label_targets(sc, addr - offset, size, nr);
	sort(sc->targets, nr, sizeof(u32), cmp_u32, NULL);

	/* Bits from ->decoded on are never read (kprobe_func_boundary()). */
	words = BITS_TO_LONGS(decoded);
	f = kvmalloc(struct_size(f, bounds, words) + nr * sizeof(u32),
		     GFP_KERNEL);
	if (!f) {
		kvfree(sc);
		return ERR_PTR(-ENOMEM);
	}
	f->start = addr - offset;
	f->size = size;
	f->decoded = decoded;
	f->users = 1;
	f->uncached = kgdb;
	f->no_jump = no_jump;
	f->nr_targets = nr;
	memcpy(f->bounds, sc->bounds, words * sizeof(long));
	f->targets = (u32 *)&f->bounds[words];
	memcpy(f->targets, sc->targets, nr * sizeof(u32));
	kvfree(sc);
	hash_add(func_hash, &f->node, f->start);
	return f;
}

static void func_free(struct kprobe_func *f)
{
	list_del(&f->idle);
	nr_idle--;
	hash_del(&f->node);
	kvfree(f);
}

/**
 * kprobe_func_put() - drop a reference taken by kprobe_func_get()
 * @f: the record, or NULL
 *
 * The record stays cached, the oldest idle one goes when there are too
 * many; one read with kgdb's breakpoint in it goes at once.  Context: kprobe_mutex held.
 */
void kprobe_func_put(struct kprobe_func *f)
{
	if (!f || --f->users)
		return;
	if (f->uncached) {
		hash_del(&f->node);
		kvfree(f);
		return;
	}
	list_add_tail(&f->idle, &func_idle);
	if (++nr_idle > FUNC_IDLE_MAX)
		func_free(list_first_entry(&func_idle, struct kprobe_func, idle));
}

/**
 * kprobe_func_forget() - text went away: drop every cached record
 *
 * Context: kprobe_mutex held, so no preparation holds a record.
 */
void kprobe_func_forget(void)
{
	struct kprobe_func *f, *tmp;

	list_for_each_entry_safe(f, tmp, &func_idle, idle)
		func_free(f);
}

/**
 * kprobe_func_boundary() - may a probe sit at @addr
 * @f: the record of @addr's function
 * @addr: the address
 *
 * Return: 0 when an instruction starts at @addr, -EILSEQ when not (or
 * when the function does not decode up to it).
 */
int kprobe_func_boundary(struct kprobe_func *f, unsigned long addr)
{
	unsigned long off = addr - f->start;

	if (off >= f->size)
		return -EINVAL;
	if (off >= f->decoded || !test_bit(off, f->bounds))
		return -EILSEQ;
	return 0;
}

/**
 * kprobe_func_may_jump() - may the region [@addr, @addr + @len) take a jmp
 * @f: the record of @addr's function
 * @addr: the region's first byte, a site
 * @len: the region's length
 *
 * The function-wide rules of optimize.c: the region lies inside the function,
 * nothing in the function rules out a jump, and no jump or call of the
 * function lands inside the region except on its first byte.
 *
 * Return: 0, or -EINVAL / -EILSEQ when the region may not take a jump.
 */
int kprobe_func_may_jump(struct kprobe_func *f, unsigned long addr,
			 unsigned int len)
{
	unsigned long off = addr - f->start;
	unsigned int lo = 0, hi = f->nr_targets, mid;

	if (off + len > f->size)
		return -EINVAL;
	if (f->no_jump)
		return f->no_jump;
	/* The first target beyond the region's first byte. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->targets[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nr_targets && f->targets[lo] < off + len)
		return -EINVAL;
	return 0;
}
