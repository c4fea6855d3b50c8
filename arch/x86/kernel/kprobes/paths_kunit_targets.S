/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets of the x86 paths suite (paths_kunit.c) that C cannot write:
 * i386 and x86-64 alike.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>

	.text

/*
 * long kxp_zf_caller(void): 1 when kxp_zf_returner() comes back with ZF
 * set, as it always does: a result returned in the flags, as
 * this_cpu_cmpxchg16b_emu() (cmpxchg8b_emu() on i386) returns its one.
 */
SYM_FUNC_START(kxp_zf_returner)
	xor	%eax, %eax
	RET
SYM_FUNC_END(kxp_zf_returner)

SYM_FUNC_START(kxp_zf_caller)
	call	kxp_zf_returner
	setz	%al
	movzbl	%al, %eax
	RET
SYM_FUNC_END(kxp_zf_caller)
