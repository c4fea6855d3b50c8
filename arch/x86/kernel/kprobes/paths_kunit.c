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
#include <linux/hrtimer.h>
#include <linux/hw_breakpoint.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/percpu.h>
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
 * An instruction of @fn after its first that runs from a copy (no
 * control transfer, which would be emulated whatever the probe asks).
 */
static kprobe_opcode_t *copied_insn_of(struct kunit *test, void *fn)
{
	unsigned long addr = (unsigned long)fn;
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
	KUNIT_FAIL(test, "no copied instruction in %ps()", fn);
	return NULL;
}

static kprobe_opcode_t *copied_insn(struct kunit *test)
{
	return copied_insn_of(test, kxp_mix);
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

/*
 * The post_handler contract, as upstream keeps it: the pre_handler and
 * the post_handler of one hit run on one CPU, with interrupts off, and no
 * other hit of the probe runs its handlers on that CPU between them.  Both
 * CPUs call kxp_mix(), and a timer on each calls it from interrupts too:
 * a copy run with interrupts on lets such a hit in between.
 */
struct kxp_pair {
	bool open;			/* a pre_handler ran, its post not yet */
	unsigned long if_at_pre;	/* regs->flags' IF seen by the pre */
	struct hrtimer timer;
};
static DEFINE_PER_CPU(struct kxp_pair, kxp_pair);
static atomic_t pair_pre, pair_post, pair_nested, pair_unopened, pair_irqs_on,
		pair_preemptible, pair_flags, pair_not_running, pair_wrong,
		pair_timer_calls;
static bool pair_stop;

/* raw_cpu_ptr(): a handler run preemptible must be counted, not splat. */
static int pair_on_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kxp_pair *s = raw_cpu_ptr(&kxp_pair);

	atomic_inc(&pair_pre);
	if (s->open)
		atomic_inc(&pair_nested);
	s->open = true;
	s->if_at_pre = regs->flags & X86_EFLAGS_IF;
	return 0;
}

static void pair_on_post(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	struct kxp_pair *s = raw_cpu_ptr(&kxp_pair);

	atomic_inc(&pair_post);
	if (!s->open)
		atomic_inc(&pair_unopened);
	s->open = false;
	if (!irqs_disabled())
		atomic_inc(&pair_irqs_on);
	if (preemptible())
		atomic_inc(&pair_preemptible);
	if ((regs->flags & X86_EFLAGS_IF) != s->if_at_pre)
		atomic_inc(&pair_flags);
	if (kprobe_running() != p)
		atomic_inc(&pair_not_running);
}

static enum hrtimer_restart pair_timer_fn(struct hrtimer *t)
{
	if (kxp_mix_fn(5, 9) != mix_5_9)
		atomic_inc(&pair_wrong);
	atomic_inc(&pair_timer_calls);
	if (READ_ONCE(pair_stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* This CPU's timer, calling kxp_mix() every 50 us until pair_stop. */
static struct hrtimer *pair_timer_start(void)
{
	struct hrtimer *t = &raw_cpu_ptr(&kxp_pair)->timer;

	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	t->function = pair_timer_fn;
	hrtimer_start(t, ns_to_ktime(50 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED);
	return t;
}

/* Calls kxp_mix() until pair_stop, with this CPU's timer calling too. */
static void pair_calls(unsigned long end)
{
	struct hrtimer *t = pair_timer_start();

	while (!READ_ONCE(pair_stop) && time_before(jiffies, end)) {
		if (kxp_mix_fn(5, 9) != mix_5_9)
			atomic_inc(&pair_wrong);
		cond_resched();
	}
	WRITE_ONCE(pair_stop, true);
	hrtimer_cancel(t);
}

static int pair_hammer(void *unused)
{
	pair_calls(jiffies + 10 * HZ);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void pair_hits_for_a_second(struct kunit *test, struct kprobe *kp)
{
	struct task_struct *t;
	int cpu, ret;

	atomic_set(&pair_pre, 0);
	atomic_set(&pair_post, 0);
	atomic_set(&pair_nested, 0);
	atomic_set(&pair_unopened, 0);
	atomic_set(&pair_irqs_on, 0);
	atomic_set(&pair_preemptible, 0);
	atomic_set(&pair_flags, 0);
	atomic_set(&pair_not_running, 0);
	atomic_set(&pair_wrong, 0);
	atomic_set(&pair_timer_calls, 0);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&kxp_pair, cpu)->open = false;
	WRITE_ONCE(pair_stop, false);
	t = kpt_start_hammer(test, pair_hammer, "kxp_pair", &cpu);
	/* After the hammer: a failed assertion there leaves no probe. */
	ret = register_kprobe(kp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	/* This CPU calls for a second, its timer too; then both stop. */
	pair_calls(ret ? jiffies : jiffies + HZ);
	kthread_stop(t);
	if (ret)
		return;
	unregister_kprobe(kp);
	kunit_info(test, "%d pre, %d post (%d timer calls): %d nested, %d unopened, %d with interrupts on, %d preemptible, %d with another IF, %d not running\n",
		   atomic_read(&pair_pre), atomic_read(&pair_post),
		   atomic_read(&pair_timer_calls), atomic_read(&pair_nested),
		   atomic_read(&pair_unopened), atomic_read(&pair_irqs_on),
		   atomic_read(&pair_preemptible), atomic_read(&pair_flags),
		   atomic_read(&pair_not_running));
	KUNIT_EXPECT_GT(test, atomic_read(&pair_pre), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&pair_timer_calls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_wrong), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_pre), atomic_read(&pair_post));
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_nested), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_unopened), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_irqs_on), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_preemptible), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_flags), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pair_not_running), 0);
}

/*
 * A post_handler that runs into another probe: that hit is missed, and
 * its instruction stepped, through the same entry of this CPU's steps
 * that the post copy had; the post copy's end must still give back IF,
 * and on a lockdep kernel lockdep's view of it.
 */
static int nested_wrong;

static void post_calls_probed(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags)
{
	seen.post++;
	if (kxp_five_fn(1, 2, 3, 4, 5) != 55)
		nested_wrong++;
}

static void post_handler_hitting_a_probe(struct kunit *test)
{
	struct kprobe outer = { .addr = copied_insn(test), .pre_handler = on_pre,
				.post_handler = post_calls_probed };
	struct kprobe inner = { .addr = copied_insn_of(test, kxp_five),
				.pre_handler = on_pre };
	int ret;

	nested_wrong = 0;
	kprobes_set_optimization(false);	/* the inner one traps */
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
	ret = register_kprobe(&outer);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, kxp_mix_fn(5, 9), mix_5_9);
		KUNIT_EXPECT_FALSE(test, irqs_disabled());
#ifdef CONFIG_PROVE_LOCKING
		KUNIT_EXPECT_TRUE(test, lockdep_hardirqs_enabled());
#endif
		KUNIT_EXPECT_EQ(test, seen.pre, 1);
		KUNIT_EXPECT_EQ(test, seen.post, 1);
		KUNIT_EXPECT_EQ(test, inner.nmissed, 1UL);
		KUNIT_EXPECT_EQ(test, nested_wrong, 0);
		unregister_kprobe(&outer);
	}
	unregister_kprobe(&inner);
	kprobes_set_optimization(true);
}

/* Through the post copy: a pre_handler and a post_handler. */
static void post_copy_keeps_the_pair_together(struct kunit *test)
{
	struct kprobe kp = {
		.addr = copied_insn(test),
		.pre_handler = pair_on_pre,
		.post_handler = pair_on_post,
	};

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	pair_hits_for_a_second(test, &kp);
}

/* Through the step copy, for comparison: a fault_handler keeps it there. */
static void step_copy_keeps_the_pair_together(struct kunit *test)
{
	struct kprobe kp = {
		.addr = copied_insn(test),
		.pre_handler = pair_on_pre,
		.post_handler = pair_on_post,
		.fault_handler = on_fault,
	};

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU");
	pair_hits_for_a_second(test, &kp);
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
	KUNIT_CASE(post_handler_hitting_a_probe),
	KUNIT_CASE_SLOW(post_copy_keeps_the_pair_together),
	KUNIT_CASE_SLOW(step_copy_keeps_the_pair_together),
	{}
};

static struct kunit_suite kxp_suite = {
	.name = "kprobes_x86_paths",
	.init = kxp_init,
	.test_cases = kxp_cases,
};

kunit_test_suite(kxp_suite);
