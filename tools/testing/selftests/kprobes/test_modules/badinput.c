// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input to the Kprobes API, and allocation failure on its paths,
 * one case at a time so that test-bad-input.sh can compare the list and
 * the control files around each (debugfs kprobes_badinput/):
 *
 *   cases     one line per case: its number, the errno the API documents
 *             for it (0: a call that returns nothing and must change
 *             nothing) and what it tries
 *   run       write a case's number: the case runs, and reading gives
 *             "<errno returned> <text: same|CHANGED> <registered: 0|N>"
 *   unregfail (kernels with probes at ftrace locations and fault
 *             injection) write 1: a jprobe at kbi_func()'s entry is
 *             unregistered with its n-th allocation failing, n = 1, 2, ...;
 *             reading gives the counts (see run_unregfail())
 *   failnth   write a scenario's number (read: the list of scenarios):
 *             the registration runs again and again, the n-th allocation
 *             of this task failing (current->fail_nth, with failslab and
 *             fail_page_alloc on), n = 1, 2, ... until a run passes every
 *             allocation; reading gives the counts (see run_failnth())
 *
 * Every case checks on its own that the text it could have touched is
 * byte for byte what it was and that none of its probes stayed
 * registered (enable_kprobe() is -EINVAL for a probe that is not).
 */
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/objpool.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

/* badinput_targets.S */
unsigned long kbi_insn(unsigned long x);
unsigned long kbi_many(unsigned long x);
extern const unsigned long kbi_body[2], kbi_len[2], kbi_piece;
#define INSN_AT(off)	((kprobe_opcode_t *)((unsigned long)kbi_insn + kbi_body[0] + (off)))
#define MANY_AT(i)	((kprobe_opcode_t *)((unsigned long)kbi_many + kbi_body[1] + 3 + 4 * (i)))
#define MANY		48

/* A C function: on a kernel with the function tracer its entry is ftrace's. */
static noinline unsigned long kbi_func(unsigned long x)
{
	asm volatile("" : "+r" (x));
	return x * 3 + 1;
}

/* Another, for a second jprobe at an entry (run_unregfail()). */
noinline unsigned long kbi_func2(unsigned long x);
noinline unsigned long kbi_func2(unsigned long x)
{
	asm volatile("" : "+r" (x));
	return x * 5 + 2;
}

/* Places that are no text. */
static unsigned long kbi_data = 42;
static DEFINE_PER_CPU(unsigned long, kbi_percpu);

/* Module text that may not be probed. */
static noinline int kbi_forbidden(int x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

NOKPROBE_SYMBOL(kbi_forbidden);

static atomic_t hits;

static int count_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&hits);
	return 0;
}

static void count_post(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
}

static int count_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&hits);
	return 0;
}

static void jentry(unsigned long x)
{
	atomic_inc(&hits);
	jprobe_return();
}

/* The text a case could touch, before it runs. */
#define WATCH_LEN	64
static u8 before_insn[WATCH_LEN], before_many[WATCH_LEN + 4 * MANY],
	  before_func[16];

/*
 * A function's bytes, through a pointer the compiler cannot see through:
 * else it may read them as fn+N, which objtool takes for a jump into the
 * middle of a function.
 */
static const void *text_of(const void *fn)
{
	OPTIMIZER_HIDE_VAR(fn);
	return fn;
}

/*
 * Only the functions' own bytes: past the end of kbi_many there may be no
 * more module text mapped (the page ends).
 */
#define INSN_LEN	min_t(size_t, kbi_len[0], sizeof(before_insn))
#define MANY_LEN	min_t(size_t, kbi_len[1], sizeof(before_many))

/*
 * The text before a run, once it has settled: a jump the optimizer put in
 * for the last run's probes may still stand (a site parks when its last
 * probe leaves), and it would go back to the original bytes in the middle
 * of this run, which text_same() would take for this run's change.
 */
static void snapshot(void)
{
	kprobe_optimizer_flush();
	memcpy(before_insn, text_of(kbi_insn), INSN_LEN);
	memcpy(before_many, text_of(kbi_many), MANY_LEN);
	memcpy(before_func, text_of(kbi_func), sizeof(before_func));
}

static bool text_same(void)
{
	return !memcmp(before_insn, text_of(kbi_insn), INSN_LEN) &&
	       !memcmp(before_many, text_of(kbi_many), MANY_LEN) &&
	       !memcmp(before_func, text_of(kbi_func), sizeof(before_func));
}

/* The probes a case uses; each starts zeroed. */
static struct kprobe kp[MANY + 1];
static struct kretprobe rp[3];
static struct jprobe jp[3];
static struct kprobe *kps[MANY + 1];
static struct kretprobe *rps[3];
static struct jprobe *jps[3];

static void reset_probes(void)
{
	int i;

	memset(kp, 0, sizeof(kp));
	memset(rp, 0, sizeof(rp));
	memset(jp, 0, sizeof(jp));
	for (i = 0; i < ARRAY_SIZE(kps); i++)
		kps[i] = &kp[i];
	for (i = 0; i < ARRAY_SIZE(rps); i++) {
		rps[i] = &rp[i];
		jps[i] = &jp[i];
	}
}

/* How many of the case's probes are still registered. */
static int registered(void)
{
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(kp); i++)
		n += kp[i].addr && !disable_kprobe(&kp[i]);
	for (i = 0; i < ARRAY_SIZE(rp); i++)
		n += rp[i].kp.addr && !disable_kretprobe(&rp[i]);
	for (i = 0; i < ARRAY_SIZE(jp); i++)
		n += jp[i].kp.addr && !disable_jprobe(&jp[i]);
	return n;
}

static void unregister_all(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kp); i++)
		if (kp[i].addr)
			unregister_kprobe(&kp[i]);
	for (i = 0; i < ARRAY_SIZE(rp); i++)
		if (rp[i].kp.addr)
			unregister_kretprobe(&rp[i]);
	for (i = 0; i < ARRAY_SIZE(jp); i++)
		if (jp[i].kp.addr)
			unregister_jprobe(&jp[i]);
}

/* Registration helpers for the cases: set up kp[0] and register it. */
static int kprobe_at(kprobe_opcode_t *addr)
{
	kp[0].addr = addr;
	kp[0].pre_handler = count_pre;
	return register_kprobe(&kp[0]);
}

/* Set up kp[i] at @addr without registering it. */
static void kp_set(int i, kprobe_opcode_t *addr)
{
	kp[i].addr = addr;
	kp[i].pre_handler = count_pre;
}

static int kprobe_sym(const char *sym, unsigned int offset)
{
	kp[0].symbol_name = sym;
	kp[0].offset = offset;
	kp[0].pre_handler = count_pre;
	return register_kprobe(&kp[0]);
}

static int kretprobe_sym(const char *sym, unsigned int offset, int maxactive,
			 size_t data_size)
{
	rp[0].kp.symbol_name = sym;
	rp[0].kp.offset = offset;
	rp[0].handler = count_ret;
	rp[0].maxactive = maxactive;
	rp[0].data_size = data_size;
	return register_kretprobe(&rp[0]);
}

static char long_name[KSYM_NAME_LEN + 64];

/*
 * The cases (their errnos and descriptions are in cases[] below).  Each
 * returns what the API returned (0 for a call that returns nothing); the
 * probes it registered on purpose on the way it unregisters itself, so
 * that only what the bad call left is counted.
 */

static int null_kprobe(void)
{
	return register_kprobe(NULL);
}

static int zeroed_kprobe(void)
{
	return register_kprobe(&kp[0]);
}

static int addr_and_symbol(void)
{
	kp[0].addr = INSN_AT(0);
	return kprobe_sym("kbi_insn", 0);
}

static int unknown_symbol(void)
{
	return kprobe_sym("kbi_no_such_symbol", 0);
}

static int module_not_loaded(void)
{
	return kprobe_sym("kbi_not_loaded:kbi_func", 0);
}

static int module_wrong_symbol(void)
{
	return kprobe_sym("kprobes_badinput:kbi_nothing", 0);
}

static int name_too_long(void)
{
	memset(long_name, 'a', sizeof(long_name) - 1);
	return kprobe_sym(long_name, 0);
}

/* kbi_insn + offset reaches the module's data */
static int offset_past_end(void)
{
	return kprobe_sym("kbi_insn", (unsigned long)&kbi_data -
				      (unsigned long)kbi_insn);
}

/* kbi_insn + offset reaches into kbi_many's first instruction */
static int addr_offset_past_end(void)
{
	kp[0].offset = (unsigned long)kbi_many + kbi_body[1] + 1 -
		       (unsigned long)INSN_AT(0);
	return kprobe_at(INSN_AT(0));
}

static int inside_insn(void)
{
	return kprobe_at(INSN_AT(1));
}

static int inside_insn_last(void)
{
	return kprobe_at(INSN_AT(9));
}

static int module_data(void)
{
	return kprobe_at((kprobe_opcode_t *)&kbi_data);
}

static int kernel_data(void)
{
	return kprobe_sym("jiffies", 0);
}

static int user_address(void)
{
	return kprobe_at((kprobe_opcode_t *)0x400000UL);
}

static int null_address(void)
{
	return kprobe_at((kprobe_opcode_t *)1UL);
}

static int vmalloc_address(void)
{
	void *v = vmalloc(PAGE_SIZE);
	int ret;

	if (!v)
		return -ENOMEM;
	ret = kprobe_at(v);
	if (!ret)
		unregister_kprobe(&kp[0]);
	vfree(v);
	return ret;
}

static int percpu_address(void)
{
	return kprobe_at((kprobe_opcode_t *)raw_cpu_ptr(&kbi_percpu));
}

static int freed_init_text(void)
{
	return kprobe_sym("start_kernel", 0);
}

static int bl_nokprobe(void)
{
	return kprobe_sym("do_int3", 0);
}

static int bl_kprobes_text(void)
{
	return kprobe_sym("kprobe_int3_handler", 0);
}

static int bl_noinstr(void)
{
	return kprobe_sym("exc_int3", 0);
}

static int bl_entry(void)
{
	return kprobe_sym("entry_SYSCALL_64", 0);
}

static int bl_idtentry(void)
{
	return kprobe_sym("asm_exc_int3", 0);
}

static int bl_jprobe_return(void)
{
	return kprobe_sym("jprobe_return", 0);
}

static int bl_kretprobe_trampoline(void)
{
	return kprobe_sym("__kretprobe_trampoline", 0);
}

static int bl_module(void)
{
	return kprobe_at((kprobe_opcode_t *)kbi_forbidden);
}

static int bl_module_piece(void)
{
	return kprobe_at((kprobe_opcode_t *)kbi_piece);
}

/*
 * The padding in front of a function (__pfx_<f> with CALL_PADDING,
 * __cfi_<f> with kCFI): the call depth accounting thunk or the CFI hash
 * live there, and every call runs through it.  Each byte of the padding
 * is refused, and the start of the CFI preamble.  A kernel without
 * padding has neither symbol (-ENOENT): nothing to refuse there.
 */
#ifdef CONFIG_FUNCTION_PADDING_BYTES
#define PADDING_BYTES	CONFIG_FUNCTION_PADDING_BYTES
#else
#define PADDING_BYTES	0
#endif

static int padding_refused(const char *sym, unsigned int bytes,
			   unsigned int *tried)
{
	unsigned int off;
	int ret;

	for (off = 0; off < bytes; off++) {
		ret = kprobe_sym(sym, off);
		if (ret == -ENOENT && !off)
			return 0;
		if (!ret) {
			pr_info("kprobes_badinput: %s+%u was accepted\n", sym, off);
			unregister_kprobe(&kp[0]);
			return -EEXIST;
		}
		if (ret != -EINVAL)
			return ret;
		(*tried)++;
	}
	return 0;
}

static int bl_padding(void)
{
	unsigned int tried = 0;
	int ret;

	ret = padding_refused("__pfx_vfs_read", PADDING_BYTES, &tried);
	if (!ret)
		ret = padding_refused("__cfi_vfs_read", 1, &tried);
	if (ret)
		return ret == -EEXIST ? 0 : ret;
	pr_info("kprobes_badinput: %u places in function padding refused\n",
		tried);
	return -EINVAL;
}

static int twice(void)
{
	int ret = kprobe_at(INSN_AT(10));

	if (ret)
		return ret;
	ret = register_kprobe(&kp[0]);
	unregister_kprobe(&kp[0]);
	return ret;
}

/*
 * Twice, named by an address plus an offset: the second call must know the
 * probe, not add the offset again and take it for a new one further on
 * (MANY_AT(2), a boundary too).
 */
static int twice_with_offset(void)
{
	int ret;

	kp_set(0, MANY_AT(0));
	kp[0].offset = 4;
	ret = register_kprobe(&kp[0]);
	if (ret)
		return ret;
	ret = register_kprobe(&kp[0]);
	unregister_kprobe(&kp[0]);
	return ret;
}

static int two_batches(void)
{
	struct kprobe *b[] = { &kp[1], &kp[0] };
	int ret;

	kp_set(0, INSN_AT(10));
	kp_set(1, MANY_AT(0));
	ret = register_kprobes(&kps[0], 1);
	if (ret)
		return ret;
	ret = register_kprobes(b, 2);
	unregister_kprobe(&kp[0]);
	return ret;
}

static int dup_in_batch(void)
{
	struct kprobe *b[] = { &kp[0], &kp[1], &kp[0] };

	kp_set(0, INSN_AT(10));
	kp_set(1, MANY_AT(0));
	return register_kprobes(b, 3);
}

static int batch_bad_last(void)
{
	kp_set(0, INSN_AT(10));
	kp_set(1, MANY_AT(0));
	kp_set(2, MANY_AT(1) + 1);
	return register_kprobes(kps, 3);
}

static int batch_null(void)
{
	return register_kprobes(NULL, 1);
}

static int batch_zero(void)
{
	kp[0].addr = INSN_AT(10);
	return register_kprobes(kps, 0);
}

static int batch_negative(void)
{
	kp[0].addr = INSN_AT(10);
	return register_kprobes(kps, -1);
}

static int batch_null_entry(void)
{
	struct kprobe *b[] = { &kp[0], NULL };

	kp_set(0, INSN_AT(10));
	return register_kprobes(b, 2);
}

static int unregister_never(void)
{
	kp_set(0, INSN_AT(10));
	unregister_kprobe(&kp[0]);
	unregister_kprobes(NULL, 1);
	unregister_kprobes(kps, -1);
	return 0;
}

static int unregister_twice(void)
{
	int ret = kprobe_at(INSN_AT(10));

	if (ret)
		return ret;
	unregister_kprobe(&kp[0]);
	unregister_kprobe(&kp[0]);
	return 0;
}

static int enable_unregistered(void)
{
	kp[0].addr = INSN_AT(10);
	return enable_kprobe(&kp[0]);
}

static int disable_unregistered(void)
{
	kp[0].addr = INSN_AT(10);
	return disable_kprobe(&kp[0]);
}

static int enable_after_unregister(void)
{
	int ret = kprobe_at(INSN_AT(10));

	if (ret)
		return ret;
	unregister_kprobe(&kp[0]);
	return enable_kprobe(&kp[0]);
}

static int krp_maxactive_huge(void)
{
	return kretprobe_sym("kbi_insn", 0, OBJPOOL_NR_OBJECT_MAX + 1, 0);
}

static int krp_data_size(void)
{
	return kretprobe_sym("kbi_insn", 0, 0, KRETPROBE_MAX_DATA_SIZE + 1);
}

static int krp_data_size_negative(void)
{
	return kretprobe_sym("kbi_insn", 0, 0, (size_t)-1);
}

static int krp_not_entry(void)
{
	return kretprobe_sym("kbi_insn", kbi_body[0] + 10, 0, 0);
}

static int krp_twice(void)
{
	int ret = kretprobe_sym("kbi_insn", 0, 0, 0);

	if (ret)
		return ret;
	ret = register_kretprobe(&rp[0]);
	unregister_kretprobe(&rp[0]);
	return ret;
}

static int krp_dup_in_batch(void)
{
	struct kretprobe *b[] = { &rp[0], &rp[0] };

	rp[0].kp.symbol_name = "kbi_insn";
	rp[0].handler = count_ret;
	return register_kretprobes(b, 2);
}

static int krp_batch_null_entry(void)
{
	struct kretprobe *b[] = { &rp[0], NULL };

	rp[0].kp.symbol_name = "kbi_insn";
	rp[0].handler = count_ret;
	return register_kretprobes(b, 2);
}

static int krp_batch_zero(void)
{
	return register_kretprobes(rps, 0);
}

static int krp_enable_unregistered(void)
{
	return enable_kretprobe(&rp[0]);
}

static int jp_not_entry(void)
{
	jp[0].kp.symbol_name = "kbi_insn";
	jp[0].kp.offset = kbi_body[0] + 10;
	jp[0].entry = jentry;
	return register_jprobe(&jp[0]);
}

static int jp_no_entry(void)
{
	jp[0].kp.symbol_name = "kbi_insn";
	return register_jprobe(&jp[0]);
}

static int jp_second(void)
{
	int ret;

	jp[0].kp.symbol_name = "kbi_insn";
	jp[0].entry = jentry;
	jp[1].kp.symbol_name = "kbi_insn";
	jp[1].entry = jentry;
	ret = register_jprobe(&jp[0]);
	if (ret)
		return ret;
	ret = register_jprobe(&jp[1]);
	unregister_jprobe(&jp[0]);
	return ret;
}

static int jp_batch_negative(void)
{
	return register_jprobes(jps, -1);
}

static int jp_disable_unregistered(void)
{
	return disable_jprobe(&jp[0]);
}

#define CASE(name, err, desc) { name, err, desc },
static const struct bad_case {
	int (*run)(void);
	int err;
	const char *desc;
} cases[] = {
	CASE(null_kprobe, -EINVAL, "register_kprobe(NULL)")
	CASE(zeroed_kprobe, -EINVAL, "a zeroed kprobe (neither addr nor symbol_name)")
	CASE(addr_and_symbol, -EINVAL, "both addr and symbol_name")
	CASE(unknown_symbol, -ENOENT, "an unknown symbol")
	CASE(module_not_loaded, -ENOENT, "module:symbol of a module that is not loaded")
	CASE(module_wrong_symbol, -ENOENT, "module:symbol of this module, no such symbol")
	CASE(name_too_long, -ENOENT, "a symbol name longer than KSYM_NAME_LEN")
	CASE(offset_past_end, -EINVAL, "symbol_name plus an offset past its end, into data")
	CASE(addr_offset_past_end, -EILSEQ,
	     "addr plus an offset past its function, inside an instruction")
	CASE(inside_insn, -EILSEQ, "an address inside an instruction")
	CASE(inside_insn_last, -EILSEQ, "the last byte of an instruction")
	CASE(module_data, -EINVAL, "module data")
	CASE(kernel_data, -EINVAL, "kernel data (jiffies)")
	CASE(user_address, -ENOENT, "a user-space address (no symbol)")
	CASE(null_address, -ENOENT, "address 1 (near NULL, no symbol)")
	CASE(vmalloc_address, -ENOENT, "a vmalloc address (no symbol)")
	CASE(percpu_address, -ENOENT, "a per-CPU address (no symbol)")
	CASE(freed_init_text, -EINVAL, "freed init text (start_kernel)")
	CASE(bl_nokprobe, -EINVAL, "blacklist: NOKPROBE_SYMBOL (do_int3)")
	CASE(bl_kprobes_text, -EINVAL, "blacklist: __kprobes text (kprobe_int3_handler)")
	CASE(bl_noinstr, -EINVAL, "blacklist: noinstr text (exc_int3)")
	CASE(bl_entry, -EINVAL, "blacklist: entry text (entry_SYSCALL_64)")
	CASE(bl_idtentry, -EINVAL, "blacklist: an IDT entry stub (asm_exc_int3)")
	CASE(bl_jprobe_return, -EINVAL, "blacklist: jprobe_return")
	CASE(bl_kretprobe_trampoline, -EINVAL, "blacklist: the kretprobe trampoline")
	CASE(bl_module, -EINVAL, "blacklist: a module's NOKPROBE_SYMBOL")
	CASE(bl_module_piece, -EINVAL, "blacklist: a piece of a module's NOKPROBE_SYMBOL (f.part.0)")
	CASE(bl_padding, -EINVAL, "a function's padding (__pfx_vfs_read+0..15, __cfi_vfs_read)")
	CASE(twice, -EINVAL, "a kprobe registered twice")
	CASE(twice_with_offset, -EINVAL, "a kprobe by addr and offset registered twice")
	CASE(two_batches, -EINVAL, "a kprobe in two batches")
	CASE(dup_in_batch, -EINVAL, "a kprobe twice in one batch")
	CASE(batch_bad_last, -EILSEQ, "a batch whose last probe is inside an instruction")
	CASE(batch_null, -EINVAL, "register_kprobes(NULL, 1)")
	CASE(batch_zero, -EINVAL, "register_kprobes() of 0 probes")
	CASE(batch_negative, -EINVAL, "register_kprobes() of -1 probes")
	CASE(batch_null_entry, -EINVAL, "a batch with a NULL entry")
	CASE(unregister_never, 0, "unregister of a probe never registered, and of bad batches")
	CASE(unregister_twice, 0, "unregister_kprobe() twice")
	CASE(enable_unregistered, -EINVAL, "enable_kprobe() of an unregistered probe")
	CASE(disable_unregistered, -EINVAL, "disable_kprobe() of an unregistered probe")
	CASE(enable_after_unregister, -EINVAL, "enable_kprobe() after unregister_kprobe()")
	CASE(krp_maxactive_huge, -ENOMEM, "a kretprobe with maxactive over the pool's 2^24, as upstream")
	CASE(krp_data_size, -E2BIG, "a kretprobe with data_size over KRETPROBE_MAX_DATA_SIZE")
	CASE(krp_data_size_negative, -E2BIG, "a kretprobe with data_size (size_t)-1")
	CASE(krp_not_entry, -EINVAL, "a kretprobe off a function's entry")
	CASE(krp_twice, -EINVAL, "a kretprobe registered twice")
	CASE(krp_dup_in_batch, -EINVAL, "a kretprobe twice in one batch")
	CASE(krp_batch_null_entry, -EINVAL, "a kretprobe batch with a NULL entry")
	CASE(krp_batch_zero, -EINVAL, "register_kretprobes() of 0 probes")
	CASE(krp_enable_unregistered, -EINVAL, "enable_kretprobe() of an unregistered probe")
	CASE(jp_not_entry, -EINVAL, "a jprobe off a function's entry")
	CASE(jp_no_entry, -EINVAL, "a jprobe with no entry handler")
	CASE(jp_second, -EBUSY, "a second jprobe on one function")
	CASE(jp_batch_negative, -EINVAL, "register_jprobes() of -1 probes")
	CASE(jp_disable_unregistered, -EINVAL, "disable_jprobe() of an unregistered probe")
};

static DEFINE_MUTEX(kbi_lock);
static char result[256];

static void run_case(const struct bad_case *c)
{
	bool same;
	int ret;

	reset_probes();
	snapshot();
	ret = c->run();
	same = text_same();	/* before registered() disarms what is left */
	snprintf(result, sizeof(result), "%d %s %d\n", ret,
		 same ? "same" : "CHANGED", registered());
	unregister_all();
}

/*
 * Allocation failure.  Each scenario registers probes of one kind and
 * checks that they fire; run_failnth() replays it with the n-th
 * allocation of this task failing.
 */
static bool works(void)
{
	atomic_set(&hits, 0);
	kbi_insn(1);
	kbi_many(1);
	kbi_func(1);
	return atomic_read(&hits) > 0;
}

static int sc_int3(void)
{
	kp[0].addr = INSN_AT(10);
	kp[0].pre_handler = count_pre;
	kp[0].post_handler = count_post;	/* never optimized */
	return register_kprobe(&kp[0]);
}

static int sc_opt(void)
{
	kp[0].addr = INSN_AT(0);
	kp[0].pre_handler = count_pre;		/* a detour is built */
	return register_kprobe(&kp[0]);
}

static int sc_batch(void)
{
	int i;

	for (i = 0; i < MANY; i++) {
		kp[i].addr = MANY_AT(i);
		kp[i].pre_handler = count_pre;
	}
	return register_kprobes(kps, MANY);
}

static int sc_entry(void)
{
	kp[0].symbol_name = "kbi_func";
	kp[0].pre_handler = count_pre;
	return register_kprobe(&kp[0]);
}

static int sc_kretprobes(void)
{
	rp[0].kp.symbol_name = "kbi_func";
	rp[0].handler = count_ret;
	rp[0].maxactive = 8;
	rp[0].data_size = 16;
	rp[1].kp.symbol_name = "kbi_insn";
	rp[1].handler = count_ret;
	return register_kretprobes(rps, 2);
}

static int sc_jprobe(void)
{
	jp[0].kp.symbol_name = "kbi_func";
	jp[0].entry = jentry;
	return register_jprobe(&jp[0]);
}

static const struct scenario {
	int (*reg)(void);
	const char *desc;
} scenarios[] = {
	{ sc_int3, "an int3 kprobe with a post_handler" },
	{ sc_opt, "an optimizable kprobe (its detour)" },
	{ sc_batch, "a batch of 48 kprobes (slots, new slot pages)" },
	{ sc_entry, "a kprobe at a function's entry (ftrace where it has fentry)" },
	{ sc_kretprobes, "a batch of 2 kretprobes (instance pools)" },
	{ sc_jprobe, "a jprobe" },
};

/* Arm this task's n-th allocation to fail; return what was left of it. */
static unsigned int set_fail_nth(unsigned int n)
{
#ifdef CONFIG_FAULT_INJECTION
	unsigned int left = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, n);
	return left;
#else
	return 0;
#endif
}

/*
 * Replay @s with the 1st, 2nd, ... allocation of this task failing until
 * one run goes through every allocation without a failure.  Counts:
 * points   allocations reached (the n of the run that saw none fail)
 * failed   runs whose call returned -ENOMEM, as it must
 * survived runs where the call coped with the failure and returned 0
 * wrong    runs that returned another errno, left a probe registered or
 *          text changed, or returned 0 with a probe that does not fire
 * and last whether the registration then works with no failure.
 */
static void run_failnth(const struct scenario *s)
{
	int n, ret, failed = 0, survived = 0, wrong = 0, final, left;
	int first_wrong = 0;
	bool injected, same;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION)) {
		snprintf(result, sizeof(result), "unsupported\n");
		return;
	}

	for (n = 1; n < 5000; n++) {
		reset_probes();
		snapshot();
		set_fail_nth(n);
		ret = s->reg();
		injected = !set_fail_nth(0);
		if (!ret) {
			bool ok = works();

			if (!ok && !first_wrong)
				first_wrong = n;
			wrong += !ok;
			unregister_all();
			if (!injected)
				break;
			survived++;
			continue;
		}
		same = text_same();
		left = registered();
		if (ret != -ENOMEM || !injected || left || !same) {
			wrong++;
			if (!first_wrong)
				first_wrong = n;
			pr_err("kprobes_badinput: %s: failing allocation %d: %d, %d registered, text %s\n",
			       s->desc, n, ret, left, same ? "same" : "CHANGED");
		} else {
			failed++;
		}
		unregister_all();
	}
	reset_probes();
	ret = s->reg();
	final = !ret && works();
	if (!ret)
		unregister_all();
	snprintf(result, sizeof(result),
		 "points=%d failed=%d survived=%d wrong=%d first_wrong=%d works_after=%d\n",
		 n, failed, survived, wrong, first_wrong, final);
}

static ssize_t cases_read(struct file *f, char __user *buf, size_t len,
			  loff_t *ppos)
{
	size_t size = 128 * ARRAY_SIZE(cases);
	char *s = kmalloc(size, GFP_KERNEL);
	ssize_t ret;
	int i, n = 0;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		n += scnprintf(s + n, size - n, "%d\t%d\t%s\n", i + 1,
			       cases[i].err, cases[i].desc);
	ret = simple_read_from_buffer(buf, len, ppos, s, n);
	kfree(s);
	return ret;
}

static ssize_t scenarios_read(struct file *f, char __user *buf, size_t len,
			      loff_t *ppos)
{
	char s[1024];
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		n += scnprintf(s + n, sizeof(s) - n, "%d\t%s\n", i + 1,
			       scenarios[i].desc);
	return simple_read_from_buffer(buf, len, ppos, s, n);
}

static ssize_t result_read(struct file *f, char __user *buf, size_t len,
			   loff_t *ppos)
{
	return simple_read_from_buffer(buf, len, ppos, result, strlen(result));
}

/* Write a number: run that case (run) or scenario (failnth). */
static ssize_t number_write(struct file *f, const char __user *buf,
			    size_t len, loff_t *ppos, bool failnth)
{
	unsigned int i;
	int ret = kstrtouint_from_user(buf, len, 10, &i);

	if (ret)
		return ret;
	if (!i || i > (failnth ? ARRAY_SIZE(scenarios) : ARRAY_SIZE(cases)))
		return -EINVAL;
	mutex_lock(&kbi_lock);
	if (failnth)
		run_failnth(&scenarios[i - 1]);
	else
		run_case(&cases[i - 1]);
	mutex_unlock(&kbi_lock);
	return len;
}

static ssize_t run_write(struct file *f, const char __user *buf, size_t len,
			 loff_t *ppos)
{
	return number_write(f, buf, len, ppos, false);
}

static ssize_t failnth_write(struct file *f, const char __user *buf,
			     size_t len, loff_t *ppos)
{
	return number_write(f, buf, len, ppos, true);
}

#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_FAULT_INJECTION)
/* What a livepatch asks of ftrace for a function: IPMODIFY there. */
static void kbi_ipmodify_func(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static struct ftrace_ops kbi_ipmodify_ops = {
	.func	= kbi_ipmodify_func,
	.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/* May an IPMODIFY ops of another user go on @ip?  0 or ftrace's errno. */
static int ipmodify_free(unsigned long ip)
{
	int ret = ftrace_set_filter_ip(&kbi_ipmodify_ops, ip, 0, 1);

	if (ret)
		return ret;
	ret = register_ftrace_function(&kbi_ipmodify_ops);
	if (!ret)
		unregister_ftrace_function(&kbi_ipmodify_ops);
	ftrace_set_filter_ip(&kbi_ipmodify_ops, ip, 1, 1);
	return ret;
}

/*
 * A jprobe at kbi_func()'s entry goes through ftrace's IPMODIFY filter of
 * Kprobes.  It is unregistered with the n-th allocation of the call
 * failing, n = 1, 2, ... until a run sees none fail; then a jprobe comes
 * to kbi_func2(), which brings that ops back, and kbi_func() must be free
 * for another IPMODIFY user (a livepatch): no address ftrace kept in the
 * filter may come back with the ops.  Counts:
 * points   allocations reached
 * wrong    runs after which kbi_func() was not free, or a jprobe failed
 */
static void run_unregfail(void)
{
	int n, ret, wrong = 0, first_wrong = 0, first_err = 0;
	unsigned long ip;
	bool injected;

	for (n = 1; n < 5000; n++) {
		reset_probes();
		jp[0].kp.symbol_name = "kbi_func";
		jp[0].entry = jentry;
		jp[1].kp.symbol_name = "kbi_func2";
		jp[1].entry = jentry;
		ret = register_jprobe(&jp[0]);
		if (ret || !kprobe_ftrace(&jp[0].kp)) {
			snprintf(result, sizeof(result), "setup failed: %d\n", ret);
			if (!ret)
				unregister_jprobe(&jp[0]);
			return;
		}
		ip = (unsigned long)jp[0].kp.addr;
		set_fail_nth(n);
		unregister_jprobe(&jp[0]);
		injected = !set_fail_nth(0);
		ret = register_jprobe(&jp[1]);
		if (!ret)
			ret = ipmodify_free(ip);
		if (ret) {
			wrong++;
			first_wrong = first_wrong ?: n;
			first_err = first_err ?: ret;
		}
		unregister_jprobe(&jp[1]);
		if (!injected)
			break;
	}
	reset_probes();
	snprintf(result, sizeof(result),
		 "points=%d wrong=%d first_wrong=%d first_err=%d\n", n, wrong,
		 first_wrong, first_err);
}

static ssize_t unregfail_write(struct file *f, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	mutex_lock(&kbi_lock);
	run_unregfail();
	mutex_unlock(&kbi_lock);
	return len;
}

static const struct file_operations unregfail_fops = {
	.read = result_read, .write = unregfail_write,
};
#endif

static const struct file_operations cases_fops = { .read = cases_read };

static const struct file_operations run_fops = {
	.read = result_read, .write = run_write,
};

static const struct file_operations failnth_fops = {
	.read = scenarios_read, .write = failnth_write,
};

static const struct file_operations result_fops = { .read = result_read };

static struct dentry *dir;

static int __init badinput_init(void)
{
	dir = debugfs_create_dir("kprobes_badinput", NULL);
	debugfs_create_file("cases", 0400, dir, NULL, &cases_fops);
	debugfs_create_file("run", 0600, dir, NULL, &run_fops);
	debugfs_create_file("failnth", 0600, dir, NULL, &failnth_fops);
#if defined(CONFIG_KPROBES_ON_FTRACE) && defined(CONFIG_FAULT_INJECTION)
	debugfs_create_file("unregfail", 0600, dir, NULL, &unregfail_fops);
#endif
	debugfs_create_file("result", 0400, dir, NULL, &result_fops);
	return 0;
}

static void __exit badinput_exit(void)
{
	debugfs_remove(dir);
}

module_init(badinput_init);
module_exit(badinput_exit);
MODULE_DESCRIPTION("Bad input and allocation failure for the Kprobes API");
MODULE_LICENSE("GPL");
