// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the ways a probe hit is carried out on x86, in C only so
 * that it runs on i386 as on x86-64 (the other x86 suites probe assembly
 * written for x86-64): the number of traps a hit takes when the copy is
 * stepped (two), boosted or followed by the post head (one) or reached
 * through a jump (none); kretprobes; a jprobe whose arguments are partly
 * on the stack; and a probe changing state while another CPU runs the
 * probed function.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/hw_breakpoint.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/stacktrace.h>
#include <asm/insn.h>
#include <asm/nops.h>
#include <asm/text-patching.h>

#include "kprobes_kunit.h"

/* The probed functions: plain C, a few instructions each, never traced. */
static noinline notrace long kxp_mix(long a, long b)
{
	long r = a * 3;

	OPTIMIZER_HIDE_VAR(r);
	r ^= b << 2;
	return r + 7;
}

static noinline notrace long kxp_five(long a, long b, long c, long d, long e)
{
	long r = a + 2 * b + 3 * c + 4 * d + 5 * e;

	OPTIMIZER_HIDE_VAR(r);
	return r;
}

static noinline notrace long kxp_callee(void)
{
	return 77;
}

/* Not static, not const: the call must read it from memory. */
long (*kxp_callee_ptr)(void) = kxp_callee;

/* A call through a pointer in memory: ff /2 with a disp32 operand. */
static noinline notrace long kxp_call_mem(void)
{
	return kxp_callee_ptr() + 1;
}

/*
 * Two of the kernel's 5-byte nops, for the cross-CPU case: what int3.c's
 * int3_gone() carries out from the bytes that stand when a CPU traps on
 * an int3 that is already gone.  QEMU's multi-threaded TCG can keep
 * running a stale translation of a removed int3, and for any other
 * instruction the trap would repeat forever (see int3_gone()).
 */
static noinline notrace long kxp_nops(long a)
{
	asm volatile(ASM_NOP5 ASM_NOP5);
	return a + 1;
}

static long (*volatile kxp_mix_fn)(long, long) = kxp_mix;
static long (*volatile kxp_nops_fn)(long) = kxp_nops;
static long (*volatile kxp_call_mem_fn)(void) = kxp_call_mem;
static long (*volatile kxp_five_fn)(long, long, long, long, long) = kxp_five;

static struct {
	int pre, post, ret, fault;
	long ret_value;
	long args[5];
} seen;

static int kxp_init(struct kunit *test)
{
	memset(&seen, 0, sizeof(seen));
	return 0;
}

static int on_pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre++;
	return 0;
}

static void on_post(struct kprobe *p, struct pt_regs *regs,
		    unsigned long flags)
{
	seen.post++;
}

static int on_fault(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	seen.fault++;
	return 0;
}

/* The traps one call of kxp_mix() takes on this CPU, and its result. */
static unsigned long traps_of_call(long *result)
{
	unsigned long before;

	preempt_disable();
	before = this_cpu_read(kprobe_traps_taken);
	*result = kxp_mix_fn(5, 9);
	before = this_cpu_read(kprobe_traps_taken) - before;
	preempt_enable();
	return before;
}

/*
 * An instruction of kxp_mix() after its first that runs from a copy (no
 * control transfer, which would be emulated whatever the probe asks).
 */
static kprobe_opcode_t *copied_insn(struct kunit *test)
{
	unsigned long addr = (unsigned long)kxp_mix;
	struct insn insn;
	int i;

	for (i = 0; i < 8; i++) {
		u8 op;

		KUNIT_ASSERT_GE(test, insn_decode_kernel(&insn, (void *)addr), 0);
		op = insn.opcode.bytes[0];
		if (i && op != 0xc3 && op != 0xe8 && op != 0xe9 && op != 0xeb &&
		    (op & 0xf0) != 0x70 && op != 0xff && op != 0x0f &&
		    insn.length < 8)
			return (kprobe_opcode_t *)addr;
		addr += insn.length;
	}
	KUNIT_FAIL(test, "no copied instruction in kxp_mix()");
	return NULL;
}

static const long mix_5_9 = (5 * 3 ^ (9 << 2)) + 7;

/* A fault_handler keeps the copy between two traps. */
static void stepped_takes_two_traps(struct kunit *test)
{
	struct kprobe kp = {
		.addr = copied_insn(test),
		.pre_handler = on_pre,
		.post_handler = on_post,
		.fault_handler = on_fault,
	};
	long r;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 2UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	KUNIT_EXPECT_EQ(test, seen.fault, 0);
	unregister_kprobe(&kp);
}

/* A pre_handler only, optimization off: the boost copy, one trap. */
static void boosted_takes_one_trap(struct kunit *test)
{
	struct kprobe kp = { .addr = copied_insn(test), .pre_handler = on_pre };
	long r;

	kprobes_set_optimization(false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 1UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	unregister_kprobe(&kp);
	kprobes_set_optimization(true);
}

/* A post_handler without a fault_handler: the post copy, one trap. */
static void post_head_takes_one_trap(struct kunit *test)
{
	struct kprobe kp = {
		.addr = copied_insn(test),
		.pre_handler = on_pre,
		.post_handler = on_post,
	};
	long r;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 1UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	unregister_kprobe(&kp);
}

/*
 * A post_handler that joins a site prepared without one: the site has no
 * post copy (its slot was trimmed to what it had), so the instruction is
 * stepped, two traps, and both probes' handlers run; once it leaves, one
 * trap again (the boost copy, or the region copy where there is a detour).
 */
static void post_joining_later_is_stepped(struct kunit *test)
{
	struct kprobe kp = { .addr = copied_insn(test), .pre_handler = on_pre };
	struct kprobe post = { .addr = kp.addr, .post_handler = on_post };
	long r;

	kprobes_set_optimization(false);	/* one trap at the end, no jump */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 2UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	unregister_kprobe(&post);
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 1UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.post, 1);
	unregister_kprobe(&kp);
	kprobes_set_optimization(true);
}

/* At the entry, once the optimizer ran: a jump to the detour, no trap. */
static void optimized_takes_no_trap(struct kunit *test)
{
	struct kprobe kp = { .addr = (kprobe_opcode_t *)kxp_mix,
			     .pre_handler = on_pre };
	long r;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_TRUE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 0UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	/* Turning optimization off puts the int3 back: one trap again. */
	kprobes_set_optimization(false);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	KUNIT_EXPECT_EQ(test, traps_of_call(&r), 1UL);
	KUNIT_EXPECT_EQ(test, r, mix_5_9);
	kprobes_set_optimization(true);
	unregister_kprobe(&kp);
}

static int on_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.ret++;
	seen.ret_value = regs_return_value(regs);
	return 0;
}

static void kretprobe_sees_return_value(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kxp_mix,
		.handler = on_return,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kxp_mix_fn(5, 9), mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.ret, 1);
	KUNIT_EXPECT_EQ(test, seen.ret_value, mix_5_9);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, kxp_mix_fn(5, 9), mix_5_9);
	KUNIT_EXPECT_EQ(test, seen.ret, 1);
}

/* The trampoline gives back the general registers: the return value too. */
static int replace_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.ret++;
	regs_set_return_value(regs, 0x5a5a);
	return 0;
}

static void kretprobe_replaces_return_value(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kxp_mix,
		.handler = replace_return,
	};

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kxp_mix_fn(5, 9), 0x5a5aL);
	KUNIT_EXPECT_EQ(test, seen.ret, 1);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, kxp_mix_fn(5, 9), mix_5_9);
}

/*
 * A stack trace taken in a return handler goes on from the probed
 * function's caller: the trampoline's pt_regs hold the real return
 * address by then, and with frame pointers %rbp/%ebp must lead the
 * unwinder to them (or to a frame of the trampoline's own), not past
 * the caller.
 */
#define KXP_TRACE_MAX	32
static unsigned long kxp_trace[KXP_TRACE_MAX];
static unsigned int kxp_trace_len;

static int trace_on_return(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	seen.ret++;
	kxp_trace_len = stack_trace_save(kxp_trace, KXP_TRACE_MAX, 0);
	return 0;
}

static noinline void return_handler_trace_shows_caller(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kxp_mix,
		.handler = trace_on_return,
	};
	unsigned long size, offset, me = (unsigned long)_THIS_IP_;
	unsigned int i;
	bool found = false;

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(me, &size, &offset));
	me -= offset;
	kxp_trace_len = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kxp_mix_fn(5, 9), mix_5_9);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, seen.ret, 1);
	for (i = 0; i < kxp_trace_len; i++)
		if (kxp_trace[i] - me < size)
			found = true;
	KUNIT_EXPECT_TRUE(test, found);
	if (!found)
		for (i = 0; i < kxp_trace_len; i++)
			kunit_info(test, "trace: %pS\n", (void *)kxp_trace[i]);
}

long kxp_zf_caller(void);
void kxp_zf_returner(void);

/*
 * The trampoline gives back the flags the function returned with:
 * kxp_zf_returner() returns its result in ZF, as a few assembly helpers
 * of the kernel do.
 */
static void kretprobe_gives_back_flags(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kxp_zf_returner,
		.handler = on_return,
	};

	KUNIT_ASSERT_EQ(test, kxp_zf_caller(), 1L);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kxp_zf_caller(), 1L);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_EQ(test, kxp_zf_caller(), 1L);
	KUNIT_EXPECT_EQ(test, seen.ret, 2);
	unregister_kretprobe(&rp);
}

#ifdef CONFIG_HAVE_HW_BREAKPOINT
/*
 * An NMI's unwinder may read the stack at any instruction of a kretprobe's
 * entry or return.  Data breakpoints on kxp_mix()'s return slot and on the
 * head of the task's instances stop the CPU right after each write to
 * either: whenever the slot holds the trampoline, the instances must say
 * what it stands for.
 */
static struct {
	unsigned long *slot;	/* kxp_mix()'s return slot, seen at its entry */
	unsigned long real;	/* the return address it held there */
	int hooked;		/* stops that found the trampoline in the slot */
	int explained;		/* ... and the instance that stands for it */
} watch;

static int note_slot(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	watch.slot = (unsigned long *)regs->sp;
	watch.real = *watch.slot;
	return 0;
}

static void slot_or_list_written(struct perf_event *bp,
				 struct perf_sample_data *data,
				 struct pt_regs *regs)
{
	struct llist_node *cur = NULL;

	if (!is_kretprobe_trampoline(READ_ONCE(*watch.slot)))
		return;
	watch.hooked++;
	if (kretprobe_find_ret_addr(current, watch.slot, &cur) == watch.real)
		watch.explained++;
}

/*
 * The calls are made by a thread of their own, from the same frame each
 * time (the same return slot), and that frame runs with interrupts off
 * while the breakpoints are on.  An interrupt pushes its frame just below
 * the stack pointer; were the watched slot there, the push itself would
 * hit the breakpoint, which QEMU 7.2's TCG took by
 * abandoning the delivery after the local APIC has taken the vector in:
 * the vector stays in service, and that CPU's tick never comes again.
 * So the thread sleeps, with interrupts on, only from mixer_wait(), whose
 * frame lies well below the slot, and makes its calls from mixer_fn(),
 * with interrupts off.  (The call of mixer_wait() writes its return
 * address into the slot: an instruction's write, which the breakpoint
 * reports as any other.  An NMI still pushes its frame there on i386,
 * which has no NMI stack; NMIs leave the APIC's ISR alone.)
 */
static struct {
	struct completion go, done;
	bool stop;
	bool lost;	/* a call never came back: the thread is not ours now */
	long result;
} mixer;

/* Time enough for one call, even on a debug kernel under TCG. */
#define MIXER_TIMEOUT	(10 * HZ)

/* Report the last call and wait for the next; false: stop. */
static noinline bool mixer_wait(void)
{
	char below_the_slot[256];

	memset(below_the_slot, 0, sizeof(below_the_slot));
	barrier_data(below_the_slot);
	local_irq_enable();
	complete(&mixer.done);
	wait_for_completion(&mixer.go);
	local_irq_disable();
	return !READ_ONCE(mixer.stop);
}

static int mixer_fn(void *unused)
{
	local_irq_disable();
	while (mixer_wait())
		mixer.result = kxp_mix_fn(5, 9);
	local_irq_enable();
	return 0;
}

/* Wait for the mixer to report; a thread that died in a call never does. */
static bool mixer_reported(struct kunit *test)
{
	if (wait_for_completion_timeout(&mixer.done, MIXER_TIMEOUT))
		return true;
	KUNIT_FAIL(test, "the mixer thread did not come back");
	mixer.lost = true;
	return false;
}

/* One call of kxp_mix() by the mixer: its result, LONG_MIN if none. */
static long mixer_call(struct kunit *test)
{
	if (mixer.lost)
		return LONG_MIN;
	complete(&mixer.go);
	return mixer_reported(test) ? mixer.result : LONG_MIN;
}

/* A data breakpoint on the word at @addr, for task @t. */
static struct perf_event *watch_word(void *addr, struct task_struct *t)
{
	struct perf_event_attr attr;

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)addr;
	attr.bp_len = sizeof(long) == 8 ? HW_BREAKPOINT_LEN_8 : HW_BREAKPOINT_LEN_4;
	attr.bp_type = HW_BREAKPOINT_W;
	return register_user_hw_breakpoint(&attr, slot_or_list_written, NULL, t);
}

static void trampoline_in_slot_is_explained(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kxp_mix,
		.entry_handler = note_slot,
		.handler = on_return,
	};
	struct perf_event *slot_bp, *list_bp;
	struct task_struct *t;

	memset(&watch, 0, sizeof(watch));
	init_completion(&mixer.go);
	init_completion(&mixer.done);
	mixer.stop = false;
	mixer.lost = false;
	t = kthread_run(mixer_fn, NULL, "kxp_mixer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	if (!mixer_reported(test))	/* now in mixer_wait() */
		goto stop;

	if (register_kretprobe(&rp)) {
		KUNIT_FAIL(test, "register_kretprobe() failed");
		goto stop;
	}
	KUNIT_EXPECT_EQ(test, mixer_call(test), mix_5_9);
	if (!watch.slot) {
		KUNIT_FAIL(test, "the entry handler did not run");
		goto out;
	}

	slot_bp = watch_word(watch.slot, t);
	list_bp = watch_word(&t->kretprobe_instances.first, t);
	if (IS_ERR(slot_bp) || IS_ERR(list_bp)) {
		if (!IS_ERR(slot_bp))
			unregister_hw_breakpoint(slot_bp);
		if (!IS_ERR(list_bp))
			unregister_hw_breakpoint(list_bp);
		kunit_mark_skipped(test, "no data breakpoints: %d %d",
				   PTR_ERR_OR_ZERO(slot_bp),
				   PTR_ERR_OR_ZERO(list_bp));
		goto out;
	}
	KUNIT_EXPECT_EQ(test, mixer_call(test), mix_5_9);
	kprobe_optimizer_flush();
	KUNIT_EXPECT_EQ(test, mixer_call(test), mix_5_9);
	unregister_hw_breakpoint(list_bp);
	unregister_hw_breakpoint(slot_bp);

	KUNIT_EXPECT_EQ(test, seen.ret, 3);
	/*
	 * Per call: the entry's write of the trampoline, and the
	 * trampoline's push of its own address on the return.
	 */
	KUNIT_EXPECT_GE(test, watch.hooked, 4);
	KUNIT_EXPECT_EQ(test, watch.explained, watch.hooked);
out:
	unregister_kretprobe(&rp);
stop:
	if (!mixer.lost) {
		WRITE_ONCE(mixer.stop, true);
		complete(&mixer.go);
		kthread_stop(t);
	}
	put_task_struct(t);
}
#else
static void trampoline_in_slot_is_explained(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_HAVE_HW_BREAKPOINT");
}
#endif

static void kxp_five_entry(long a, long b, long c, long d, long e)
{
	seen.args[0] = a;
	seen.args[1] = b;
	seen.args[2] = c;
	seen.args[3] = d;
	seen.args[4] = e;
	jprobe_return();
}

/* Five arguments: on i386 two of them are on the stack. */
static void jprobe_sees_stack_arguments(struct kunit *test)
{
	struct jprobe jp = {
		.kp.addr = (kprobe_opcode_t *)kxp_five,
		.entry = kxp_five_entry,
	};
	int i;

	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, kxp_five_fn(1, 2, 3, 4, 5), 55L);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, seen.args[i], (long)i + 1);
	unregister_jprobe(&jp);
}

/*
 * The indirect call in kxp_call_mem(), emulated by the int3 path: on
 * x86-64 a RIP-relative operand, on i386 an absolute one (mod 0, rm 5),
 * which is no [ebp] there.  Retpoline kernels call a thunk instead.
 */
static void indirect_call_through_memory(struct kunit *test)
{
	unsigned long addr = (unsigned long)kxp_call_mem;
	struct kprobe kp = { .pre_handler = on_pre };
	struct insn insn;
	int i;

	for (i = 0; i < 16 && !kp.addr; i++, addr += insn.length) {
		KUNIT_ASSERT_GE(test, insn_decode_kernel(&insn, (void *)addr), 0);
		if (insn.opcode.bytes[0] == 0xff &&
		    X86_MODRM_REG(insn.modrm.bytes[0]) == 2 &&
		    X86_MODRM_MOD(insn.modrm.bytes[0]) != 3)
			kp.addr = (kprobe_opcode_t *)addr;
		if (insn.opcode.bytes[0] == 0xc3)
			break;
	}
	if (!kp.addr)
		kunit_skip(test, "the compiler called through a register or a thunk");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kxp_call_mem_fn(), 78L);
	KUNIT_EXPECT_EQ(test, seen.pre, 1);
	unregister_kprobe(&kp);
}

/* The @n-th (from 0) of kxp_nops()'s two nops. */
static kprobe_opcode_t *nop_of(struct kunit *test, int n)
{
	unsigned long addr = (unsigned long)kxp_nops;
	struct insn insn;
	int i;

	for (i = 0; i < 8; i++, addr += insn.length) {
		KUNIT_ASSERT_GE(test, insn_decode_kernel(&insn, (void *)addr), 0);
		if (insn.length == 5 && !memcmp((void *)addr, x86_nops[5], 5) &&
		    !n--)
			return (kprobe_opcode_t *)addr;
	}
	KUNIT_FAIL(test, "no nops in kxp_nops()");
	return NULL;
}

/* The other CPU calls kxp_nops() and checks every result meanwhile. */
static atomic_t hammer_wrong, hammer_calls;

static int hammer(void *unused)
{
	while (!kthread_should_stop()) {
		if (kxp_nops_fn(5) != 6)
			atomic_inc(&hammer_wrong);
		atomic_inc(&hammer_calls);
		/* Let RCU Tasks end, or the optimizer waits for us forever. */
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/*
 * A probe that is optimized every other round (a pre_handler only); a
 * second one at the same place, with a post_handler, that takes the jump
 * away again; disabling, enabling and removal; and a probe on the next
 * instruction all along; while the other CPU runs through all of them.
 */
static void state_changes_under_calls(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = on_pre };
	struct kprobe post = { .pre_handler = on_pre, .post_handler = on_post };
	struct kprobe next = { .pre_handler = on_pre };
	struct task_struct *t;
	int cpu, round;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	kp.addr = nop_of(test, 0);
	post.addr = kp.addr;
	next.addr = nop_of(test, 1);
	atomic_set(&hammer_wrong, 0);
	atomic_set(&hammer_calls, 0);
	t = kpt_start_hammer(test, hammer, "kxp_hammer", &cpu);
	KUNIT_ASSERT_EQ(test, register_kprobe(&next), 0);
	for (round = 0; round < 20; round++) {
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		if (round & 1) {
			kprobe_optimizer_flush();	/* the jump goes in */
			if (IS_ENABLED(CONFIG_OPTPROBES))
				KUNIT_EXPECT_TRUE(test, kprobe_optimized(&kp));
		}
		msleep(2);
		KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
		KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
		msleep(2);
		disable_kprobe(&kp);
		msleep(1);
		enable_kprobe(&kp);
		unregister_kprobe(&post);
		unregister_kprobe(&kp);
	}
	unregister_kprobe(&next);
	kthread_stop(t);
	KUNIT_EXPECT_GT(test, atomic_read(&hammer_calls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_wrong), 0);
	KUNIT_EXPECT_GT(test, seen.pre, 0);
	KUNIT_EXPECT_GT(test, seen.post, 0);
}

static struct kunit_case kxp_cases[] = {
	KUNIT_CASE(stepped_takes_two_traps),
	KUNIT_CASE(boosted_takes_one_trap),
	KUNIT_CASE(post_head_takes_one_trap),
	KUNIT_CASE(post_joining_later_is_stepped),
	KUNIT_CASE(optimized_takes_no_trap),
	KUNIT_CASE(kretprobe_sees_return_value),
	KUNIT_CASE(kretprobe_replaces_return_value),
	KUNIT_CASE(kretprobe_gives_back_flags),
	KUNIT_CASE(return_handler_trace_shows_caller),
	KUNIT_CASE(trampoline_in_slot_is_explained),
	KUNIT_CASE(jprobe_sees_stack_arguments),
	KUNIT_CASE(indirect_call_through_memory),
	KUNIT_CASE_SLOW(state_changes_under_calls),
	{}
};

static struct kunit_suite kxp_suite = {
	.name = "kprobes_x86_paths",
	.init = kxp_init,
	.test_cases = kxp_cases,
};

kunit_test_suite(kxp_suite);
