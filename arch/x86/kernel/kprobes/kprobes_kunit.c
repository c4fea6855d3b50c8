// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of Kprobes on x86-64: registration and its refusals, handler
 * calls and what they see, out-of-line execution of each kind of probed
 * instruction, reentrancy, faults, and removal.
 *
 * The probed functions are in kprobes_kunit_targets.S, so that each probe
 * sits on exactly the instruction kind a case is about.
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ptrace.h>
#include <linux/vmalloc.h>
#include <asm/text-patching.h>
#include <asm/trapnr.h>

#include "decode.h"
#include "kprobes_kunit.h"

/* Set up for every case; kpt_rip_load() returns it. */
long kpt_data;

static inline unsigned long kpt_addr(unsigned int i)
{
	return kpt_points[i].fn + kpt_points[i].offset;
}

#define ADDR(i)		kpt_addr(i)
#define POINT(i)	((kprobe_opcode_t *)ADDR(i))

/* What the handlers saw; reset by the suite's init. */
static struct {
	int pre, post, fault;
	unsigned long pre_ip, post_ip, post_ax;
	unsigned long args[3];
	int fault_trap;
	bool claim_fault;
	long *mend_fault;	/* claim by aiming %rdi here, ip left alone */
	unsigned long traps;	/* TRAPS_OF() */
} seen;

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	seen.pre_ip = regs->ip;
	seen.args[0] = regs->di;
	seen.args[1] = regs->si;
	seen.args[2] = regs->dx;
	return 0;
}

static void count_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
	seen.post++;
	seen.post_ip = regs->ip;
	seen.post_ax = regs->ax;
}

static int count_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	seen.fault++;
	seen.fault_trap = trapnr;
	if (seen.mend_fault) {
		/* Mend the cause and let the copy run again. */
		regs->di = (unsigned long)seen.mend_fault;
		return 1;
	}
	if (!seen.claim_fault)
		return 0;
	/* Claim it: resume after the load with a value of our own. */
	regs->ax = 99;
	regs->ip = ADDR(KPT_LOAD_DONE);
	return 1;
}

static int kprobes_kunit_init(struct kunit *test)
{
	memset(&seen, 0, sizeof(seen));
	kpt_data = 0x5eed;
	return 0;
}

/* A probe of ours with the counting handlers at @addr. */
static void kp_at(struct kprobe *kp, kprobe_opcode_t *addr)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = addr;
	kp->pre_handler = count_pre;
	kp->post_handler = count_post;
	kp->fault_handler = count_fault;
}

static void fires_once_with_ip(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_args",
		.pre_handler = count_pre,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_args(1, 2, 3), 6);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	/* regs->ip in a pre_handler: just past the breakpoint. */
	KUNIT_EXPECT_EQ(test, seen.pre_ip, (unsigned long)kp.addr + 1);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_PTR_EQ(test, get_kprobe(kp.addr), &kp);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0UL);
}

static void pre_handler_sees_arguments(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_args",
		.pre_handler = count_pre,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_args(0x11, 0x2200, 0x330000), 0x332211);
	KUNIT_EXPECT_EQ(test, seen.args[0], 0x11UL);
	KUNIT_EXPECT_EQ(test, seen.args[1], 0x2200UL);
	KUNIT_EXPECT_EQ(test, seen.args[2], 0x330000UL);
	unregister_kprobe(&kp);
}

static void post_handler_sees_after_state(struct kunit *test)
{
	struct kprobe kp;

	kp_at(&kp, POINT(KPT_POST));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_post(), 0x1234L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	KUNIT_EXPECT_EQ(test, seen.post_ax & 0xffffffff, 0x1234UL);
	KUNIT_EXPECT_EQ(test, seen.post_ip, ADDR(KPT_POST_NEXT));
	unregister_kprobe(&kp);
}

/* One instruction class: probe @point, run @call, expect @want. */
#define CHECK_CLASS(test, point, call, want) do {			\
	struct kprobe __kp;						\
									\
	memset(&seen, 0, sizeof(seen));					\
	kp_at(&__kp, POINT(point));					\
	KUNIT_ASSERT_EQ(test, register_kprobe(&__kp), 0);		\
	KUNIT_EXPECT_EQ_MSG(test, (long)(call), (long)(want), #call);	\
	KUNIT_EXPECT_EQ_MSG(test, seen.pre, 1, #call);			\
	KUNIT_EXPECT_EQ_MSG(test, seen.post, 1, #call);			\
	unregister_kprobe(&__kp);					\
	KUNIT_EXPECT_EQ_MSG(test, (long)(call), (long)(want), #call);	\
} while (0)

static void rip_relative_load(struct kunit *test)
{
	CHECK_CLASS(test, KPT_RIP, kpt_rip_load(), 0x5eed);
}

static void relative_call(struct kunit *test)
{
	CHECK_CLASS(test, KPT_CALL, kpt_rel_call(), 42);
}

static void relative_jmp(struct kunit *test)
{
	CHECK_CLASS(test, KPT_JMP, kpt_rel_jmp(1), 7);
}

static void jcc_taken_and_not(struct kunit *test)
{
	CHECK_CLASS(test, KPT_JCC, kpt_jcc(0), 2);
	CHECK_CLASS(test, KPT_JCC, kpt_jcc(1), 1);
	CHECK_CLASS(test, KPT_JCC32, kpt_jcc32(0), 2);
	CHECK_CLASS(test, KPT_JCC32, kpt_jcc32(1), 1);
}

static void ret_insn(struct kunit *test)
{
	CHECK_CLASS(test, KPT_RET, kpt_ret(), 5);
}

static void push_and_pop(struct kunit *test)
{
	CHECK_CLASS(test, KPT_PUSH, kpt_push_pop(10), 13);
	CHECK_CLASS(test, KPT_POP, kpt_push_pop(20), 23);
}

static void indirect_calls(struct kunit *test)
{
	long (*fn)(void) = kpt_helper;

	CHECK_CLASS(test, KPT_CALLR, kpt_call_reg(kpt_helper), 42);
	CHECK_CLASS(test, KPT_CALLM, kpt_call_mem(&fn), 42);
}

/*
 * loop, jrcxz and indirect jmps are emulated: each taken and not.  A jmp
 * through memory is one upstream refuses (-EOPNOTSUPP): taken here, and
 * make conformance holds that difference to Documentation/trace/kprobes.rst.
 */
static void loop_jrcxz_indirect_jmp(struct kunit *test)
{
	long (*fn)(void) = kpt_helper;
	struct kprobe kp;

	CHECK_CLASS(test, KPT_LOOP, kpt_loop(1), 1);		/* not taken */
	CHECK_CLASS(test, KPT_JRCXZ, kpt_jrcxz(0), 1);		/* taken */
	CHECK_CLASS(test, KPT_JRCXZ, kpt_jrcxz(5), 2);
	CHECK_CLASS(test, KPT_JMPR, kpt_jmp_reg(kpt_helper), 41);
	CHECK_CLASS(test, KPT_JMPM, kpt_jmp_mem(&fn), 41);

	/* The loop taken twice, then not: three hits. */
	memset(&seen, 0, sizeof(seen));
	kp_at(&kp, POINT(KPT_LOOP));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_loop(3), 3L);
	KUNIT_EXPECT_EQ(test, seen.pre, 3);
	KUNIT_EXPECT_EQ(test, seen.post, 3);
	unregister_kprobe(&kp);
}

/*
 * What the decoder refuses: instructions that cannot run out of line with
 * interrupts off, or that trap or switch context on purpose.  Registration
 * asks the same function of the probed instruction.
 */
static void refused_instructions(struct kunit *test)
{
	static const struct {
		const char *what;
		u8 bytes[4];
		bool refused;
	} table[] = {
		{ "hlt", { 0xf4 }, true },
		{ "int $0x80", { 0xcd, 0x80 }, true },
		{ "int3", { 0xcc }, true },
		{ "iretq", { 0x48, 0xcf }, true },
		{ "ud2", { 0x0f, 0x0b }, true },
		{ "syscall", { 0x0f, 0x05 }, true },
		{ "sysret", { 0x0f, 0x07 }, true },
		{ "mov %eax,%ss", { 0x8e, 0xd0 }, true },
		{ "mov %eax,%ds", { 0x8e, 0xd8 }, false },	/* as upstream */
		{ "mov %edx,%es", { 0x8e, 0xc2 }, false },
		{ "nop", { 0x90 }, false },
		{ "pushf", { 0x9c }, false },
		{ "cli", { 0xfa }, false },	/* emulated, as upstream */
		{ "sti", { 0xfb }, false },
		{ "popf", { 0x9d }, false },
		{ "push %rbp", { 0x55 }, false },
		{ "mov %rdi,%rax", { 0x48, 0x89, 0xf8 }, false },
	};
	struct insn insn;
	int i;

	for (i = 0; i < ARRAY_SIZE(table); i++) {
		KUNIT_ASSERT_EQ_MSG(test, insn_decode_kernel(&insn, table[i].bytes),
				    0, "%s", table[i].what);
		KUNIT_EXPECT_EQ_MSG(test, kprobe_insn_refused(&insn),
				    table[i].refused, "%s", table[i].what);
	}
}

/*
 * A pre_handler that changes regs->ip and returns non-zero sends the CPU
 * there: the probed instruction is not carried out, and no post_handler
 * runs.
 */
static int redirect_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	regs->ax = 0x99;
	regs->ip = ADDR(KPT_POST_NEXT);
	return 1;
}

static void pre_handler_redirects(struct kunit *test)
{
	struct kprobe kp = { .addr = POINT(KPT_POST), .pre_handler = redirect_pre,
			     .post_handler = count_post };

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_post(), 0x99L);	/* the mov was skipped */
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 0);
	KUNIT_EXPECT_NULL(test, kprobe_running());
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_post(), 0x1234L);
}

/* A fault inside a pre_handler or a post_handler goes to the fault_handler. */
static long *handler_hole;

static int faulting_pre(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	seen.pre++;
	seen.args[0] = copy_from_kernel_nofault(&v, handler_hole, sizeof(v));
	return 0;
}

static void faulting_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	long v;

	seen.post++;
	seen.args[1] = copy_from_kernel_nofault(&v, handler_hole, sizeof(v));
}

static void fault_in_handlers(struct kunit *test)
{
	struct kprobe kp = { .addr = POINT(KPT_RIP), .pre_handler = faulting_pre,
			     .post_handler = faulting_post,
			     .fault_handler = count_fault };
	char *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, area);
	handler_hole = (long *)(area + PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rip_load(), 0x5eedL);
	unregister_kprobe(&kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	/* Offered to the fault_handler, which declined: the fixup ran. */
	KUNIT_EXPECT_EQ(test, seen.fault, 2);
	KUNIT_EXPECT_EQ(test, seen.fault_trap, X86_TRAP_PF);
	KUNIT_EXPECT_EQ(test, seen.args[0], (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, seen.args[1], (unsigned long)-EFAULT);
}

static void pushf_shows_real_if(struct kunit *test)
{
	unsigned long expect = kpt_pushf() & X86_EFLAGS_IF;
	unsigned long traps, image;
	struct kprobe kp;

	KUNIT_ASSERT_NE(test, expect, 0UL);	/* the suite runs with IRQs on */
	kp_at(&kp, POINT(KPT_PUSHF));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_pushf() & X86_EFLAGS_IF, expect);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	unregister_kprobe(&kp);

	/* Without a fault_handler: the post copy, also run with IF cleared. */
	kp_at(&kp, POINT(KPT_PUSHF));
	kp.fault_handler = NULL;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	preempt_disable();
	traps = this_cpu_read(kprobe_traps_taken);
	image = kpt_pushf();
	traps = this_cpu_read(kprobe_traps_taken) - traps;
	preempt_enable();
	KUNIT_EXPECT_EQ(test, image & X86_EFLAGS_IF, expect);
	KUNIT_EXPECT_EQ(test, traps, 1UL);	/* the post copy, not the step */
	KUNIT_EXPECT_EQ(test, seen.post, 2);
	unregister_kprobe(&kp);
}

/*
 * cli, sti and popf are emulated on the regs the trap returns to, as
 * upstream does: a probe at the start of _raw_spin_lock_irq() and the like
 * works on a kernel without ftrace at entries.
 */
static void if_changes_are_emulated(struct kunit *test)
{
	static const int at[] = { KPT_CLI, KPT_STI, KPT_POPF };
	unsigned long expect = kpt_if_changes();
	struct kprobe kp[ARRAY_SIZE(at)];
	int i;

	KUNIT_ASSERT_EQ(test, expect, 2UL);	/* the suite runs with IRQs on */
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		kp_at(&kp[i], POINT(at[i]));
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, kpt_if_changes(), expect);
	KUNIT_EXPECT_EQ(test, seen.pre, 3);
	KUNIT_EXPECT_EQ(test, seen.post, 3);
	for (i = 0; i < ARRAY_SIZE(at); i++)
		unregister_kprobe(&kp[i]);
	KUNIT_EXPECT_EQ(test, kpt_if_changes(), expect);
}

/*
 * Places the decoder must accept and carry out right: prefixed
 * instructions as the kernel is full of them (a per-CPU load through %gs,
 * an operand-size prefix, a lock prefix), through each copy: the post
 * copy (a pre and a post_handler), the step copy (a fault_handler too)
 * and the boost copy (a pre_handler only).  A decoder that refused them
 * fails here.
 */
static void prefixed_instructions_run(struct kunit *test)
{
	static const int at[] = { KPT_GS, KPT_O16, KPT_LOCK };
	long data = 0, calls = 0;
	struct kprobe kp;
	int i, way;

	for (i = 0; i < ARRAY_SIZE(at); i++) {
		for (way = 0; way < 3; way++) {
			kp_at(&kp, POINT(at[i]));
			if (way != 1)
				kp.fault_handler = NULL;
			if (way == 2)
				kp.post_handler = NULL;
			KUNIT_ASSERT_EQ_MSG(test, register_kprobe(&kp), 0,
					    "point %d, way %d", at[i], way);
			KUNIT_EXPECT_EQ(test, kpt_prefixed(&data), ++calls);
			unregister_kprobe(&kp);
		}
	}
	KUNIT_EXPECT_EQ(test, data, calls);
	KUNIT_EXPECT_EQ(test, seen.pre, 3 * ARRAY_SIZE(at));
	KUNIT_EXPECT_EQ(test, seen.post, 2 * ARRAY_SIZE(at));
}

static void symbol_plus_offset(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpt_push_pop",
		.offset = kpt_points[KPT_LEA].offset,
		.pre_handler = count_pre,
		.post_handler = count_post,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kp.addr, POINT(KPT_LEA));
	KUNIT_EXPECT_FALSE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	KUNIT_EXPECT_EQ(test, kpt_push_pop(1), 4L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	/* The lea has run when the post_handler sees the registers. */
	KUNIT_EXPECT_EQ(test, seen.post_ax, 4UL);
	unregister_kprobe(&kp);
}

static struct kprobe recursing_kp;

static int recursing_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	/* Hits the probe again from inside its handler: a miss. */
	seen.args[0] = kpt_args(1, 1, 1);
	return 0;
}

static void recursion_counts_missed(struct kunit *test)
{
	recursing_kp = (struct kprobe){
		.symbol_name = "kpt_args",
		.pre_handler = recursing_pre,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&recursing_kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_args(1, 2, 3), 6L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.args[0], 3UL);
	KUNIT_EXPECT_EQ(test, recursing_kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, kpt_args(1, 2, 3), 6L);
	KUNIT_EXPECT_EQ(test, recursing_kp.nmissed, 2UL);
	unregister_kprobe(&recursing_kp);
}

static void two_probes_one_address(struct kunit *test)
{
	struct kprobe a, b;

	kp_at(&a, POINT(KPT_RIP));
	kp_at(&b, POINT(KPT_RIP));
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	KUNIT_EXPECT_EQ(test, kpt_rip_load(), 0x5eedL);
	KUNIT_EXPECT_EQ(test, seen.pre, 2);
	KUNIT_EXPECT_EQ(test, seen.post, 2);
	unregister_kprobe(&a);
	KUNIT_EXPECT_EQ(test, kpt_rip_load(), 0x5eedL);
	KUNIT_EXPECT_EQ(test, seen.pre, 3);
	KUNIT_EXPECT_EQ(test, seen.post, 3);
	unregister_kprobe(&b);
}

/* Breakpoints this CPU takes while @call runs (preemption off). */
#define TRAPS_OF(call) ({					\
	unsigned long __before;					\
	long __ret;						\
								\
	preempt_disable();					\
	__before = this_cpu_read(kprobe_traps_taken);		\
	__ret = (call);						\
	seen.traps = this_cpu_read(kprobe_traps_taken) - __before; \
	preempt_enable();					\
	__ret;							\
})

/*
 * Boosting, counted: a hit costs one trap when the copy jumps back by
 * itself (a plain probe, a post_handler's post copy, an emulated
 * instruction) and two when the copy must trap back: for a fault_handler,
 * and always for an instruction with an exception-table entry, whose
 * fault must be moved back to the original before the table is searched.
 * Optimization is off here: a jump would take none.
 */
static long call_rip_load(void)
{
	return kpt_rip_load();
}

static long call_fault_load(void)
{
	long good = 3;

	return kpt_fault_load(&good);
}

/*
 * The targets are assembly without kCFI's type hash in front: under
 * CONFIG_CFI_CLANG an indirect call to one fails its check, so the table
 * calls C wrappers, and they call the targets directly.
 */
static long call_rel_call(void)
{
	return kpt_rel_call();
}

static const struct {
	int point;
	bool post, fault;		/* the probe's handlers beyond pre */
	long (*call)(void), want;
	unsigned long traps;
	const char *why;
} trap_cases[] = {
	{ KPT_RIP, false, false, call_rip_load, 0x5eed, 1,
	  "a plain probe is boosted" },
	{ KPT_RIP, true, false, call_rip_load, 0x5eed, 1,
	  "a post_handler rides the post copy" },
	{ KPT_RIP, true, true, call_rip_load, 0x5eed, 2,
	  "a fault_handler needs the step" },
	{ KPT_LOAD, false, false, call_fault_load, 3, 2,
	  "an extable insn is never boosted" },
	{ KPT_CALL, false, false, call_rel_call, 42, 1,
	  "a call is emulated" },
};

static void traps_per_hit(struct kunit *test)
{
	struct kprobe kp;
	int i;

	kprobes_set_optimization(false);
	for (i = 0; i < ARRAY_SIZE(trap_cases); i++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = POINT(trap_cases[i].point);
		kp.pre_handler = count_pre;
		if (trap_cases[i].post)
			kp.post_handler = count_post;
		if (trap_cases[i].fault)
			kp.fault_handler = count_fault;
		if (register_kprobe(&kp)) {
			KUNIT_FAIL(test, "cannot register: %s", trap_cases[i].why);
			continue;
		}
		seen.post = 0;
		KUNIT_EXPECT_EQ(test, TRAPS_OF(trap_cases[i].call()),
				trap_cases[i].want);
		KUNIT_EXPECT_EQ_MSG(test, seen.traps, trap_cases[i].traps, "%s",
				    trap_cases[i].why);
		KUNIT_EXPECT_EQ(test, seen.post, trap_cases[i].post ? 1 : 0);
		unregister_kprobe(&kp);
	}
	KUNIT_EXPECT_EQ(test, TRAPS_OF(kpt_rip_load()), 0x5eedL);
	KUNIT_EXPECT_EQ_MSG(test, seen.traps, 0UL, "no probe, no trap");
	KUNIT_EXPECT_EQ(test, seen.pre, (int)ARRAY_SIZE(trap_cases));
	kprobes_set_optimization(true);
}

static noinline int kpt_nokprobe(int x)
{
	return x + 1;
}

NOKPROBE_SYMBOL(kpt_nokprobe);

/* @kp must be refused with @err, leaving nothing registered. */
static void expect_refused(struct kunit *test, struct kprobe *kp, int err,
			   kprobe_opcode_t *where)
{
	void *addr_before = kp->addr;
	int ret = register_kprobe(kp);

	KUNIT_EXPECT_EQ_MSG(test, ret, err, "%s%s%p",
			    kp->symbol_name ?: "", kp->symbol_name ? " " : "",
			    kp->addr);
	/* Taken after all: @kp lives on the caller's stack. */
	if (!ret) {
		unregister_kprobe(kp);
		return;
	}
	KUNIT_EXPECT_PTR_EQ(test, kp->addr, addr_before);
	if (where)
		KUNIT_EXPECT_NULL(test, get_kprobe(where));
}

static void refusals(struct kunit *test)
{
	struct kprobe kp = {};

	/* Neither, and both, of addr and symbol_name. */
	expect_refused(test, &kp, -EINVAL, NULL);
	kp.addr = POINT(KPT_RIP);
	kp.symbol_name = "kpt_rip_load";
	expect_refused(test, &kp, -EINVAL, POINT(KPT_RIP));

	kp = (struct kprobe){ .symbol_name = "kpt_no_such_function" };
	expect_refused(test, &kp, -ENOENT, NULL);

	/* Inside the 5-byte mov of kpt_post. */
	kp = (struct kprobe){ .addr = POINT(KPT_POST) + 1 };
	expect_refused(test, &kp, -EILSEQ, POINT(KPT_POST) + 1);

	/* Data is no text. */
	kp = (struct kprobe){ .addr = (kprobe_opcode_t *)&kpt_data };
	expect_refused(test, &kp, -EINVAL, (kprobe_opcode_t *)&kpt_data);

	/* The blacklist: NOKPROBE_SYMBOL, .kprobes.text, noinstr, entry. */
	kp = (struct kprobe){ .addr = (kprobe_opcode_t *)kpt_nokprobe };
	expect_refused(test, &kp, -EINVAL, NULL);
	kp = (struct kprobe){ .symbol_name = "kprobe_int3_handler" };
	expect_refused(test, &kp, -EINVAL, NULL);
	kp = (struct kprobe){ .symbol_name = "exc_int3" };
	expect_refused(test, &kp, -EINVAL, NULL);
	kp = (struct kprobe){ .symbol_name = "entry_SYSCALL_64" };
	expect_refused(test, &kp, -EINVAL, NULL);
	/* A part of a listed function, as "f.cold" or "f.part.0" is. */
	kp = (struct kprobe){ .symbol_name = "kpt_nokprobe.part.0" };
	expect_refused(test, &kp, -EINVAL, NULL);
	KUNIT_EXPECT_EQ(test, kpt_nokprobe(1), 2);
}

static void registered_twice(struct kunit *test)
{
	struct kprobe kp;

	kp_at(&kp, POINT(KPT_RIP));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpt_rip_load(), 0x5eedL);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_NULL(test, get_kprobe(POINT(KPT_RIP)));
}

static void no_hits_after_unregister(struct kunit *test)
{
	struct kprobe kp;

	kp_at(&kp, POINT(KPT_CALL));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_rel_call(), 42L);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_rel_call(), 42L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_NULL(test, get_kprobe(POINT(KPT_CALL)));
	/* The original byte is back. */
	KUNIT_EXPECT_EQ(test, *POINT(KPT_CALL), 0xe8);
}

static void disabled_leaves_text(struct kunit *test)
{
	struct kprobe kp;
	u8 orig = *POINT(KPT_RIP);

	kp_at(&kp, POINT(KPT_RIP));
	kp.flags = KPROBE_FLAG_DISABLED;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, *POINT(KPT_RIP), orig);
	KUNIT_EXPECT_EQ(test, kpt_rip_load(), 0x5eedL);
	KUNIT_EXPECT_EQ(test, seen.pre, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, *POINT(KPT_RIP), 0xcc);
	KUNIT_EXPECT_EQ(test, kpt_rip_load(), 0x5eedL);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
}

static void fault_in_copy(struct kunit *test)
{
	struct kprobe kp;
	long good = 77;
	char *area;
	long *hole;

	/* The guard page behind a vmalloc area is never mapped. */
	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	hole = (long *)(area + PAGE_SIZE);

	kp_at(&kp, POINT(KPT_LOAD));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_fault_load(&good), 77L);
	KUNIT_EXPECT_EQ(test, seen.fault, 0);

	/* Not claimed: the kernel's exception table fixes the original. */
	KUNIT_EXPECT_EQ(test, kpt_fault_load(hole), -1L);
	KUNIT_EXPECT_EQ(test, seen.fault, 1);
	KUNIT_EXPECT_EQ(test, seen.fault_trap, X86_TRAP_PF);

	/* A non-canonical address: #GP, the same way. */
	KUNIT_EXPECT_EQ(test, kpt_fault_load((long *)0xdead000000000000UL), -1L);
	KUNIT_EXPECT_EQ(test, seen.fault, 2);
	KUNIT_EXPECT_EQ(test, seen.fault_trap, X86_TRAP_GP);

	/* Claimed: the fault_handler's fixup wins. */
	seen.claim_fault = true;
	KUNIT_EXPECT_EQ(test, kpt_fault_load(hole), 99L);
	KUNIT_EXPECT_EQ(test, seen.fault, 3);
	unregister_kprobe(&kp);
	vfree(area);
}

/*
 * A fault_handler that mends the cause (here: the pointer the load uses)
 * and claims the fault without moving ip: the copy runs again, and its
 * step ends as any other, post_handler included.
 */
static void fault_mended_in_copy(struct kunit *test)
{
	struct kprobe kp;
	long good = 77;

	kp_at(&kp, POINT(KPT_LOAD));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	seen.mend_fault = &good;
	KUNIT_EXPECT_EQ(test, kpt_fault_load((long *)0x10), 77L);
	KUNIT_EXPECT_EQ(test, seen.fault, 1);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	KUNIT_EXPECT_EQ(test, seen.post_ip, ADDR(KPT_LOAD_DONE));
	KUNIT_EXPECT_NULL(test, kprobe_running());
	unregister_kprobe(&kp);
}

/*
 * The last probe of a site leaves while the other CPU runs its instruction,
 * one with an exception-table entry that faults: a hit between the probe's
 * unlinking and the int3's removal still steps the copy, and the fault in
 * it must still be moved back to the original instruction, where the
 * exception table finds its fixup.
 */
static atomic_t fload_calls, fload_wrong, fload_hits;
static long *fload_hole;

static int fault_load_hammer(void *unused)
{
	long good = 5;

	while (!kthread_should_stop()) {
		if (kpt_fault_load(fload_hole) != -1 ||
		    kpt_fault_load(&good) != 5)
			atomic_inc(&fload_wrong);
		atomic_inc(&fload_calls);
		cond_resched();
	}
	return 0;
}

static int fload_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&fload_hits);
	return 0;
}

static void fault_in_copy_while_unregistering(struct kunit *test)
{
	struct task_struct *hammer;
	struct kprobe kp;
	int round, cpu;
	char *area;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	fload_hole = (long *)(area + PAGE_SIZE);	/* the guard page */
	atomic_set(&fload_calls, 0);
	atomic_set(&fload_wrong, 0);
	atomic_set(&fload_hits, 0);

	hammer = kpt_start_hammer(test, fault_load_hammer, "kprobes-fault-hammer", &cpu);

	for (round = 0; round < 300; round++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = POINT(KPT_LOAD);
		kp.pre_handler = fload_pre;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		udelay(50);
		unregister_kprobe(&kp);
	}
	kthread_stop(hammer);
	vfree(area);

	KUNIT_EXPECT_EQ(test, atomic_read(&fload_wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&fload_hits), 0);
	kunit_info(test, "%d calls, %d hits on CPU%d\n",
		   atomic_read(&fload_calls), atomic_read(&fload_hits), cpu);
}

/*
 * A jprobe on a function entered on the IRQ stack, a few words below its
 * top: the stack saved for the handler must end at that top, not run into
 * the guard page behind it.  The timer interrupt's handler is called
 * through call_on_irqstack().
 */
static atomic_t irq_jhits;

static void irq_jentry(struct pt_regs *regs)
{
	atomic_inc(&irq_jhits);
	jprobe_return();
}

static void jprobe_on_irq_stack(struct kunit *test)
{
	struct jprobe jp = {
		.kp.symbol_name = "__sysvec_apic_timer_interrupt",
		.entry = irq_jentry,
	};
	int i, round;

	/*
	 * Under QEMU's TCG a vCPU can go on running a translation of the
	 * text made before the int3 went in (the mirror of what int3.c's
	 * int3_gone() copes with), and see no hit for seconds.  One more
	 * round, armed anew, tells that from a jprobe that never fires.
	 */
	for (round = 0; round < 2; round++) {
		atomic_set(&irq_jhits, 0);
		KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
		for (i = 0; i < 100 && atomic_read(&irq_jhits) < 10; i++)
			msleep(20);
		unregister_jprobe(&jp);
		if (atomic_read(&irq_jhits) >= 10)
			break;
		kunit_info(test, "round %d: %d hits; arming again\n",
			   round, atomic_read(&irq_jhits));
		memset(&jp.kp, 0, sizeof(jp.kp));
		jp.kp.symbol_name = "__sysvec_apic_timer_interrupt";
	}
	KUNIT_EXPECT_GE(test, atomic_read(&irq_jhits), 10);
	kunit_info(test, "%d timer interrupts seen\n", atomic_read(&irq_jhits));
}

/*
 * Once a jprobe handler has come back, nothing is in flight on its CPU: a
 * jprobe_return() from anywhere else must find no state to restore
 * (jprobe_longjmp() returns NULL and leaves the registers alone), so that
 * int3.c reports it instead of resuming a stale hit.
 */
static atomic_t plain_jhits;

static void plain_jentry(long a, long b, long c)
{
	atomic_inc(&plain_jhits);
	jprobe_return();
}

static void longjmp_only_in_flight(struct kunit *test)
{
	struct jprobe jp = {
		.kp.addr = (kprobe_opcode_t *)kpt_args,
		.entry = plain_jentry,
	};
	struct pt_regs regs = { .ip = 0x1234, .sp = 0x5678 };
	struct kprobe_site *site;

	atomic_set(&plain_jhits, 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	migrate_disable();
	KUNIT_EXPECT_EQ(test, kpt_args(1, 2, 3), 6L);
	local_irq_disable();
	site = jprobe_longjmp(&regs);
	local_irq_enable();
	migrate_enable();
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, atomic_read(&plain_jhits), 1);
	KUNIT_EXPECT_NULL(test, site);
	KUNIT_EXPECT_EQ(test, regs.ip, 0x1234UL);
	KUNIT_EXPECT_EQ(test, regs.sp, 0x5678UL);
}

/*
 * Cross-CPU: another CPU runs the probed functions without pause while this
 * one registers and unregisters probes on them.  Every result must stay
 * right, and once unregister_kprobe() has returned no handler of the probe
 * may still be running anywhere.
 */
static atomic_t stress_inside;
static atomic_t stress_wrong;
static atomic_t stress_hits;

static int stress_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&stress_inside);
	atomic_inc(&stress_hits);
	udelay(200);	/* the hammer CPU spends most of its time in here */
	atomic_dec(&stress_inside);
	return 0;
}

static int stress_hammer(void *unused)
{
	long (*fn)(void) = kpt_helper;

	while (!kthread_should_stop()) {
		if (kpt_rip_load() != 0x5eed || kpt_rel_call() != 42 ||
		    kpt_jcc(0) != 2 || kpt_push_pop(1) != 4 ||
		    kpt_call_mem(&fn) != 42)
			atomic_inc(&stress_wrong);
		cond_resched();
	}
	return 0;
}

/*
 * The window this case exists for is a trap on an int3 that is gone by
 * the time the handler looks for its site: the hit path stalls there
 * while it runs, so that the unregistrations land inside.  Under QEMU's
 * TCG our writes are made again after a sync (patch.c), and that sync
 * waits for the stalled CPU, which then still finds the site: the case
 * writes once, as on hardware, while it runs.
 */
static void cross_cpu_arm_disarm(struct kunit *test)
{
	static const int points[] = { KPT_RIP, KPT_CALL, KPT_JCC, KPT_LEA,
				      KPT_CALLM };
	struct kprobe kps[ARRAY_SIZE(points)];
	struct task_struct *hammer;
	struct kpt_windows win;
	int round, i, cpu, hits;
	bool repoke;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	repoke = static_branch_unlikely(&kprobe_repoke);
	if (repoke)
		static_branch_disable(&kprobe_repoke);
	WRITE_ONCE(kprobe_window_stall_us[KPROBE_WINDOW_INT3_GONE], 100);
	kpt_windows_start(&win);
	atomic_set(&stress_inside, 0);
	atomic_set(&stress_wrong, 0);
	atomic_set(&stress_hits, 0);

	hammer = kpt_start_hammer(test, stress_hammer, "kprobes-hammer", &cpu);

	/*
	 * A hundred rounds at least; more, up to a bound, while the window
	 * has been entered fewer than ten times (a busy host can starve the
	 * hammer's vCPU for a while).  The bound keeps a path that never
	 * enters it a failure, not a hang.
	 */
	for (round = 0; round < 100 ||
	     (round < 2000 && kpt_window_entered(&win, KPROBE_WINDOW_INT3_GONE) < 10);
	     round++) {
		i = round % ARRAY_SIZE(points);
		memset(&kps[i], 0, sizeof(kps[i]));
		kps[i].addr = POINT(points[i]);
		kps[i].pre_handler = stress_pre;
		if (register_kprobe(&kps[i])) {
			KUNIT_FAIL(test, "round %d: register_kprobe() failed", round);
			break;
		}
		udelay(300);
		unregister_kprobe(&kps[i]);
		/* Nothing in a handler now, and nothing entering one later. */
		KUNIT_EXPECT_EQ(test, atomic_read(&stress_inside), 0);
		hits = atomic_read(&stress_hits);
		udelay(100);
		KUNIT_EXPECT_EQ(test, atomic_read(&stress_hits), hits);
	}
	kthread_stop(hammer);
	WRITE_ONCE(kprobe_window_stall_us[KPROBE_WINDOW_INT3_GONE], 0);
	if (repoke)
		static_branch_enable(&kprobe_repoke);

	KUNIT_EXPECT_EQ(test, atomic_read(&stress_wrong), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&stress_hits), 0);
	kunit_info(test, "%d hits on CPU%d during %d register/unregister rounds\n",
		   atomic_read(&stress_hits), cpu, round);
	kpt_windows_report(test, &win);
	KUNIT_EXPECT_GE(test, kpt_window_entered(&win, KPROBE_WINDOW_INT3_GONE), 10);
}

/*
 * kgdb's breakpoint on the first byte of a five-byte mov reads as an int3
 * followed by four nops.  A function decoded while it is there must not
 * learn boundaries inside the mov, nor keep them once kgdb takes the
 * int3 away: a probe inside the mov is refused (-EILSEQ) with the int3
 * there and after, and one on the next instruction is taken after.
 */
#ifdef CONFIG_KGDB
/* kgdb's own table (kernel/debug/debug_core.h), as its "Z0" packet sets it. */
int dbg_set_sw_break(unsigned long addr);
int dbg_remove_sw_break(unsigned long addr);
int dbg_activate_sw_breakpoints(void);
int dbg_deactivate_sw_breakpoints(void);

static int probe_once(struct kprobe *kp, unsigned long addr)
{
	int ret;

	kp_at(kp, (kprobe_opcode_t *)addr);
	ret = register_kprobe(kp);
	if (!ret)
		unregister_kprobe(kp);
	return ret;
}
#endif

static void kgdb_int3_is_not_decoded(struct kunit *test)
{
#ifdef CONFIG_KGDB
	unsigned long mov = (unsigned long)POINT(KPT_KGDB);
	struct kprobe kp;
	int ret;

	KUNIT_ASSERT_EQ(test, *(u8 *)mov, 0xb8);
	KUNIT_ASSERT_EQ(test, dbg_set_sw_break(mov), 0);
	ret = dbg_activate_sw_breakpoints();
	if (ret || *(u8 *)mov != INT3_INSN_OPCODE) {
		dbg_deactivate_sw_breakpoints();
		dbg_remove_sw_break(mov);
		KUNIT_FAIL(test, "kgdb's breakpoint did not go in: %d", ret);
		return;
	}
	KUNIT_EXPECT_EQ(test, probe_once(&kp, mov + 1), -EILSEQ);
	KUNIT_EXPECT_EQ(test, probe_once(&kp, mov + 4), -EILSEQ);
	dbg_deactivate_sw_breakpoints();
	dbg_remove_sw_break(mov);
	KUNIT_ASSERT_EQ(test, *(u8 *)mov, 0xb8);

	KUNIT_EXPECT_EQ(test, probe_once(&kp, mov + 1), -EILSEQ);
	KUNIT_EXPECT_EQ(test, probe_once(&kp, mov + 5), 0);
	KUNIT_EXPECT_EQ(test, kpt_kgdb_target(), 0x90909091L);
#else
	kunit_skip(test, "no kgdb in this kernel");
#endif
}

static struct kunit_case kprobes_core_cases[] = {
	KUNIT_CASE(fires_once_with_ip),
	KUNIT_CASE(pre_handler_sees_arguments),
	KUNIT_CASE(post_handler_sees_after_state),
	KUNIT_CASE(rip_relative_load),
	KUNIT_CASE(relative_call),
	KUNIT_CASE(relative_jmp),
	KUNIT_CASE(jcc_taken_and_not),
	KUNIT_CASE(ret_insn),
	KUNIT_CASE(push_and_pop),
	KUNIT_CASE(indirect_calls),
	KUNIT_CASE(pushf_shows_real_if),
	KUNIT_CASE(if_changes_are_emulated),
	KUNIT_CASE(prefixed_instructions_run),
	KUNIT_CASE(loop_jrcxz_indirect_jmp),
	KUNIT_CASE(refused_instructions),
	KUNIT_CASE(pre_handler_redirects),
	KUNIT_CASE(fault_in_handlers),
	KUNIT_CASE(symbol_plus_offset),
	KUNIT_CASE(recursion_counts_missed),
	KUNIT_CASE(two_probes_one_address),
	KUNIT_CASE(traps_per_hit),
	KUNIT_CASE(refusals),
	KUNIT_CASE(kgdb_int3_is_not_decoded),
	KUNIT_CASE(registered_twice),
	KUNIT_CASE(no_hits_after_unregister),
	KUNIT_CASE(disabled_leaves_text),
	KUNIT_CASE(fault_in_copy),
	KUNIT_CASE(fault_mended_in_copy),
	KUNIT_CASE(jprobe_on_irq_stack),
	KUNIT_CASE(longjmp_only_in_flight),
	KUNIT_CASE_SLOW(cross_cpu_arm_disarm),
	KUNIT_CASE_SLOW(fault_in_copy_while_unregistering),
	{}
};

static struct kunit_suite kprobes_core_suite = {
	.name = "kprobes_core",
	.init = kprobes_kunit_init,
	.test_cases = kprobes_core_cases,
};

kunit_test_suite(kprobes_core_suite);

MODULE_DESCRIPTION("KUnit tests of the Kprobes core");
MODULE_LICENSE("GPL");
