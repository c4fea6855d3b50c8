// SPDX-License-Identifier: GPL-2.0
/*
 * The stub of each function that probes reach through the direct call
 * (x86-64).
 *
 * A function the Kprobes direct ops is alone on calls its own stub, ten
 * bytes in a slot (slots.c):
 *
 *	push	$cell		the address of the stub's cell, as an imm32
 *	jmp	kprobe_ftrace_stub_tramp
 *
 * The trampoline (ftrace_direct.S) builds the pt_regs and hands the cell
 * to kprobe_ftrace_stub_hit(), which runs what the cell names without
 * looking the address up.  The push and jmp keep calls and returns
 * paired: the trampoline returns to the fentry call's return, as the
 * shared one does.  The slot lies within 2 GiB of kernel and module text,
 * so the call site's rel32 and the stub's reach.
 *
 * The cells are words in pages of the modules' area, which lies in the
 * top 2 GiB of the address space: a sign-extended imm32 holds a cell's
 * address.  They are written by the core (kernel/kprobes/ftrace.c) and
 * read by hits; this file only hands them out.  Their pages are kept on a
 * list under kprobe_mutex; only stub allocation and freeing walk it.
 */
#include <linux/bitmap.h>
#include <linux/execmem.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/slab.h>
#include <asm/text-patching.h>

void kprobe_ftrace_stub_tramp(void);

#define PUSH_IMM32_OPCODE	0x68
#define PUSH_IMM32_SIZE		5
#define STUB_SIZE		(PUSH_IMM32_SIZE + JMP32_INSN_SIZE)
#define CELLS_PER_PAGE		(PAGE_SIZE / sizeof(unsigned long))

struct cell_page {
	struct list_head node;
	unsigned long *base;
	unsigned int used;
	DECLARE_BITMAP(busy, CELLS_PER_PAGE);
};

static LIST_HEAD(cell_pages);

/* Does @p fit a sign-extended imm32? */
static bool fits_imm32(void *p)
{
	return (unsigned long)p == (unsigned long)(long)(s32)(unsigned long)p;
}

static struct cell_page *cell_page_new(void)
{
	struct cell_page *cp = kzalloc(sizeof(*cp), GFP_KERNEL);

	if (!cp)
		return NULL;
	cp->base = execmem_alloc(EXECMEM_MODULE_DATA, PAGE_SIZE);
	if (!cp->base || !fits_imm32(cp->base) ||
	    !fits_imm32(cp->base + CELLS_PER_PAGE - 1)) {
		execmem_free(cp->base);
		kfree(cp);
		return NULL;
	}
	list_add(&cp->node, &cell_pages);
	return cp;
}

/* A free cell, set to 0, or NULL. */
static unsigned long *cell_alloc(void)
{
	struct cell_page *cp;
	unsigned int i;

	list_for_each_entry(cp, &cell_pages, node)
		if (cp->used < CELLS_PER_PAGE)
			goto found;
	cp = cell_page_new();
	if (!cp)
		return NULL;
found:
	i = find_first_zero_bit(cp->busy, CELLS_PER_PAGE);
	__set_bit(i, cp->busy);
	cp->used++;
	WRITE_ONCE(cp->base[i], 0);
	return &cp->base[i];
}

/* Give back @cell; its page goes when it empties, unless it is the last. */
static void cell_free(unsigned long *cell)
{
	struct cell_page *cp;

	list_for_each_entry(cp, &cell_pages, node) {
		if (cell < cp->base || cell >= cp->base + CELLS_PER_PAGE)
			continue;
		__clear_bit(cell - cp->base, cp->busy);
		if (--cp->used || list_is_singular(&cell_pages))
			return;
		list_del(&cp->node);
		execmem_free(cp->base);
		kfree(cp);
		return;
	}
	WARN_ON_ONCE(1);
}

/**
 * arch_kprobe_ftrace_stub_alloc() - a stub for the function at @ip
 * @ip: its ftrace location
 * @cell: set to the stub's cell, which holds 0
 *
 * Context: kprobe_mutex held.
 * Return: the stub's address, or 0 without memory (the call site then
 * calls kprobe_ftrace_direct_tramp itself).
 */
unsigned long arch_kprobe_ftrace_stub_alloc(unsigned long ip,
					    unsigned long **cell)
{
	u8 buf[STUB_SIZE];
	kprobe_opcode_t *slot;
	unsigned long *c;
	s32 imm;

	c = cell_alloc();
	if (!c)
		return 0;
	slot = kprobe_slot_alloc();
	if (!slot) {
		cell_free(c);
		return 0;
	}
	imm = (s32)(unsigned long)c;
	buf[0] = PUSH_IMM32_OPCODE;
	memcpy(buf + 1, &imm, sizeof(imm));
	memcpy(buf + PUSH_IMM32_SIZE,
	       text_gen_insn(JMP32_INSN_OPCODE, slot + PUSH_IMM32_SIZE,
			     kprobe_ftrace_stub_tramp),
	       JMP32_INSN_SIZE);
	text_poke_copy(slot, buf, STUB_SIZE);
	kprobe_slot_trim(slot, STUB_SIZE);
	*cell = c;
	return (unsigned long)slot;
}

/**
 * arch_kprobe_ftrace_stub_cell() - the cell of a stub
 * @stub: from arch_kprobe_ftrace_stub_alloc()
 *
 * Return: the address its push names.
 */
unsigned long *arch_kprobe_ftrace_stub_cell(unsigned long stub)
{
	s32 imm;

	memcpy(&imm, (u8 *)stub + 1, sizeof(imm));
	return (unsigned long *)(long)imm;
}

/*
 * Context: kprobe_mutex held; no call site calls @stub, and an RCU Tasks
 * grace period has passed since the last did (nor is any hit still
 * reading its cell: each reads it with preemption off, after the push).
 */
void arch_kprobe_ftrace_stub_free(unsigned long stub)
{
	cell_free(arch_kprobe_ftrace_stub_cell(stub));
	kprobe_slot_free((kprobe_opcode_t *)stub);
}
