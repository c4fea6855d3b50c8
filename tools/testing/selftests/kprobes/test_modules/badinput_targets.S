/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kprobes_badinput.c probes, in assembly so that every instruction
 * boundary is known: kbi_insn begins with a 10-byte movabs (offsets 1 to
 * 9 are inside it) and is long enough for a jump; kbi_many is 48 adds of
 * 4 bytes each, a boundary every 4 bytes.  kbi_body[] gives where the
 * first instruction of each starts (after an ENDBR on IBT kernels), and
 * kbi_len[] how long each is.  kbi_piece is the address of a piece of
 * the module's NOKPROBE_SYMBOL() function.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>

	.text

/* unsigned long kbi_insn(unsigned long x): x + 0x1122334455667788 */
SYM_FUNC_START(kbi_insn)
.Linsn:
	movabs	$0x1122334455667788, %rax
	add	%rdi, %rax
	nop
	nop
	nop
	nop
	nop
	RET
.Linsn_end:
SYM_FUNC_END(kbi_insn)

/* unsigned long kbi_many(unsigned long x): x + 48 */
SYM_FUNC_START(kbi_many)
.Lmany:
	mov	%rdi, %rax
	.rept 48
	add	$1, %rax
	.endr
	RET
.Lmany_end:
SYM_FUNC_END(kbi_many)

/*
 * A piece of kbi_forbidden (badinput.c, NOKPROBE_SYMBOL) under a symbol
 * of its own, named as GCC names the parts it splits off a function:
 * refused as kbi_forbidden is.  Never called.
 */
SYM_FUNC_START_LOCAL(kbi_forbidden.part.0)
	mov	$1, %eax
	RET
SYM_FUNC_END(kbi_forbidden.part.0)

	.section .rodata
/* Its address, for badinput.c, which cannot name it. */
SYM_DATA_START(kbi_piece)
	.quad	kbi_forbidden.part.0
SYM_DATA_END(kbi_piece)

SYM_DATA_START(kbi_body)
	.quad	.Linsn - kbi_insn
	.quad	.Lmany - kbi_many
SYM_DATA_END(kbi_body)

/* The length of each, so that the test reads no byte past its end. */
SYM_DATA_START(kbi_len)
	.quad	.Linsn_end - kbi_insn
	.quad	.Lmany_end - kbi_many
SYM_DATA_END(kbi_len)
