/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jprobe_return_to_hit(): the end of a jprobe handler, called by
 * jprobe_return() (jprobe.c) once it knows a handler is in flight.
 *
 * The handler ran on the probed function's stack, below the stack pointer
 * of the probe hit.  Put the stack pointer back there and trap: the int3
 * handler (jprobe_longjmp()) restores the registers and the stack bytes
 * saved at the hit, and the probed function then runs as if the handler
 * had never been.  Nothing returns from here.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>
#include <asm/percpu.h>
#include <asm/unwind_hints.h>

	.text
SYM_FUNC_START(jprobe_return_to_hit)
	_ASM_MOV	PER_CPU_VAR(jprobe_entry_sp), %_ASM_SP
	UNWIND_HINT_UNDEFINED
SYM_INNER_LABEL(jprobe_return_trap, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR	/* compared with, never called */
	int3
	/* Not reached: the int3 handler goes on elsewhere.  For objtool, a return. */
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(jprobe_return_to_hit)
/* Runs on the stack pointer of a hit that is still in flight. */
_ASM_NOKPROBE(jprobe_return_to_hit)
