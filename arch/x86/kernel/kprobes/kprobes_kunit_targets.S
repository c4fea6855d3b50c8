/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions for the Kprobes KUnit suite, written in assembly so that each
 * probed instruction is exactly the kind under test, whatever the compiler
 * would have made of C.  kpt_points[] holds the address of each probed
 * instruction (KPT_* indices in kprobes_kunit.c, same order).
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>
#include <asm/processor-flags.h>

	.text

/* long kpt_args(long a, long b, long c): a + b + c, probed at entry */
SYM_FUNC_START(kpt_args)
	lea	(%rdi, %rsi), %rax
	add	%rdx, %rax
	RET
SYM_FUNC_END(kpt_args)

/* long kpt_post(void): 0x1234; the probed mov sets %eax */
SYM_FUNC_START(kpt_post)
.Lpost:	mov	$0x1234, %eax
.Lpost_next:
	RET
SYM_FUNC_END(kpt_post)

/* long kpt_rip_load(void): kpt_data, read RIP-relative */
SYM_FUNC_START(kpt_rip_load)
.Lrip:	mov	kpt_data(%rip), %rax
	RET
SYM_FUNC_END(kpt_rip_load)

SYM_FUNC_START(kpt_helper)
	mov	$41, %eax
	RET
SYM_FUNC_END(kpt_helper)

/* long kpt_rel_call(void): 42, through a relative call */
SYM_FUNC_START(kpt_rel_call)
	push	%rbp
	mov	%rsp, %rbp
.Lcall:	call	kpt_helper
	add	$1, %rax
	pop	%rbp
	RET
SYM_FUNC_END(kpt_rel_call)

/* long kpt_rel_jmp(long x): 7 when x != 0, the probed jmp taken */
SYM_FUNC_START(kpt_rel_jmp)
	test	%rdi, %rdi
	jz	1f
.Ljmp:	jmp	2f
1:	mov	$1, %eax
	RET
2:	mov	$7, %eax
	RET
SYM_FUNC_END(kpt_rel_jmp)

/* long kpt_jcc(long x): 2 when x == 0 (jcc taken), else 1 */
SYM_FUNC_START(kpt_jcc)
	test	%rdi, %rdi
.Ljcc:	je	1f
	mov	$1, %eax
	RET
1:	mov	$2, %eax
	RET
SYM_FUNC_END(kpt_jcc)

/* long kpt_jcc32(long x): as kpt_jcc, with a rel32 jcc */
SYM_FUNC_START(kpt_jcc32)
	test	%rdi, %rdi
.Ljcc32: .byte	0x0f, 0x84
	.long	1f - (. + 4)
	mov	$1, %eax
	RET
1:	mov	$2, %eax
	RET
SYM_FUNC_END(kpt_jcc32)

/* long kpt_ret(void): 5; the probed instruction is the ret */
SYM_FUNC_START(kpt_ret)
	mov	$5, %eax
	ANNOTATE_UNRET_SAFE	/* the raw form is what is under test */
.Lret:	ret
	int3
SYM_FUNC_END(kpt_ret)

/* long kpt_push_pop(long x): x + 3, through a saved and restored %rbx */
SYM_FUNC_START(kpt_push_pop)
.Lpush:	push	%rbx
	mov	%rdi, %rbx
.Llea:	lea	3(%rbx), %rax
.Lpop:	pop	%rbx
	RET
SYM_FUNC_END(kpt_push_pop)

/* long kpt_call_reg(long (*fn)(void)): fn() + 1, through call *%rdi */
SYM_FUNC_START(kpt_call_reg)
	push	%rbp
	mov	%rsp, %rbp
	ANNOTATE_RETPOLINE_SAFE	/* test only: the raw form is under test */
.Lcallr: call	*%rdi
	add	$1, %rax
	pop	%rbp
	RET
SYM_FUNC_END(kpt_call_reg)

/* long kpt_call_mem(long (**fnp)(void)): (*fnp)() + 1, through call *8(%rdi) */
SYM_FUNC_START(kpt_call_mem)
	push	%rbp
	mov	%rsp, %rbp
	sub	$8, %rdi
	ANNOTATE_RETPOLINE_SAFE
.Lcallm: call	*8(%rdi)
	add	$1, %rax
	pop	%rbp
	RET
SYM_FUNC_END(kpt_call_mem)

/* unsigned long kpt_pushf(void): the flags image, pushed by pushf */
SYM_FUNC_START(kpt_pushf)
.Lpushf: pushf
	pop	%rax
	RET
SYM_FUNC_END(kpt_pushf)

/*
 * unsigned long kpt_if_changes(void): IF as seen after cli (bit 0), after
 * sti (bit 1) and after a popf of an image with IF cleared (bit 2); the
 * caller's flags are put back at the end.  Called with IRQs on: 2.
 */
SYM_FUNC_START(kpt_if_changes)
	pushf
	xor	%eax, %eax
.Lcli:	cli
	pushf
	pop	%rdx
	and	$X86_EFLAGS_IF, %edx
	shr	$X86_EFLAGS_IF_BIT, %edx
	or	%edx, %eax
.Lsti:	sti
	pushf
	pop	%rdx
	and	$X86_EFLAGS_IF, %edx
	shr	$(X86_EFLAGS_IF_BIT - 1), %edx
	or	%edx, %eax
	pushf
	andq	$~X86_EFLAGS_IF, (%rsp)
.Lpopf:	popf
	pushf
	pop	%rdx
	and	$X86_EFLAGS_IF, %edx
	shr	$(X86_EFLAGS_IF_BIT - 2), %edx
	or	%edx, %eax
	popf
	RET
SYM_FUNC_END(kpt_if_changes)

/*
 * long kpt_prefixed(long *p): ++*p, through three prefixed instructions
 * of the kinds the kernel is full of: a per-CPU load (%gs:0, the fixed
 * per-CPU data, always there), an operand-size prefix (a 2-byte nop) and
 * a lock prefix.
 */
SYM_FUNC_START(kpt_prefixed)
.Lgs:	movq	%gs:0, %rax
.Lo16:	.byte	0x66, 0x90		/* xchg %ax, %ax */
.Llock:	lock incq (%rdi)
	movq	(%rdi), %rax
	RET
SYM_FUNC_END(kpt_prefixed)

/* long kpt_loop(long n): n, counted by a loop instruction (n > 0) */
SYM_FUNC_START(kpt_loop)
	mov	%rdi, %rcx
	xor	%eax, %eax
1:	inc	%rax
.Lloop:	loop	1b
	RET
SYM_FUNC_END(kpt_loop)

/* long kpt_jrcxz(long x): 1 when x == 0 (jrcxz taken), else 2 */
SYM_FUNC_START(kpt_jrcxz)
	mov	%rdi, %rcx
	mov	$2, %eax
.Ljrcxz: jrcxz	1f
	RET
1:	mov	$1, %eax
	RET
SYM_FUNC_END(kpt_jrcxz)

/* long kpt_jmp_reg(long (*fn)(void)): fn(), as a tail call through %rdi */
SYM_FUNC_START(kpt_jmp_reg)
	ANNOTATE_RETPOLINE_SAFE
.Ljmpr:	jmp	*%rdi
SYM_FUNC_END(kpt_jmp_reg)

/* long kpt_jmp_mem(long (**fnp)(void)): (*fnp)(), a tail call through memory */
SYM_FUNC_START(kpt_jmp_mem)
	sub	$16, %rdi
	ANNOTATE_RETPOLINE_SAFE
.Ljmpm:	jmp	*16(%rdi)
SYM_FUNC_END(kpt_jmp_mem)

/*
 * long kpt_kgdb_target(void): 0x90909091.  kgdb's int3 on the mov's first
 * byte leaves four 0x90 behind it, which read as four nops.  Never called
 * while the int3 is there.
 */
SYM_FUNC_START(kpt_kgdb_target)
.Lkgdb_mov:
	movl	$0x90909090, %eax
	addl	$1, %eax
	RET
SYM_FUNC_END(kpt_kgdb_target)

/*
 * A piece of kpt_nokprobe (kprobes_kunit.c, NOKPROBE_SYMBOL) under a
 * symbol of its own, named as GCC names the parts and clones it makes of
 * a function: refused as kpt_nokprobe is.  Never called.
 */
SYM_FUNC_START_LOCAL(kpt_nokprobe.part.0)
	mov	$2, %eax
	RET
SYM_FUNC_END(kpt_nokprobe.part.0)

/* long kpt_fault_load(long *p): *p, or -1 when the load faults */
SYM_FUNC_START(kpt_fault_load)
	mov	$-1, %rax
.Lload:	mov	(%rdi), %rax
.Lload_done:
	RET
	_ASM_EXTABLE(.Lload, .Lload_done)
SYM_FUNC_END(kpt_fault_load)

/*
 * Each point as { function, offset }: a data reference to the inside of a
 * function would not land on an ENDBR, which objtool rightly flags.
 */
	.macro point fn, label
	.quad	\fn
	.quad	\label - \fn
	.endm

	.pushsection .rodata
SYM_DATA_START(kpt_points)
	point	kpt_post, .Lpost
	point	kpt_post, .Lpost_next
	point	kpt_rip_load, .Lrip
	point	kpt_rel_call, .Lcall
	point	kpt_rel_jmp, .Ljmp
	point	kpt_jcc, .Ljcc
	point	kpt_jcc32, .Ljcc32
	point	kpt_ret, .Lret
	point	kpt_push_pop, .Lpush
	point	kpt_push_pop, .Llea
	point	kpt_push_pop, .Lpop
	point	kpt_call_reg, .Lcallr
	point	kpt_call_mem, .Lcallm
	point	kpt_pushf, .Lpushf
	point	kpt_fault_load, .Lload
	point	kpt_fault_load, .Lload_done
	point	kpt_loop, .Lloop
	point	kpt_jrcxz, .Ljrcxz
	point	kpt_jmp_reg, .Ljmpr
	point	kpt_kgdb_target, .Lkgdb_mov
	point	kpt_if_changes, .Lcli
	point	kpt_if_changes, .Lsti
	point	kpt_if_changes, .Lpopf
	point	kpt_prefixed, .Lgs
	point	kpt_prefixed, .Lo16
	point	kpt_prefixed, .Llock
	point	kpt_jmp_mem, .Ljmpm
SYM_DATA_END(kpt_points)
	.popsection
