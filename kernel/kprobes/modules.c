// SPDX-License-Identifier: GPL-2.0
/*
 * Probes in module text.
 *
 * A module's probes turn GONE when its text goes away: all of it when the
 * module is unloaded (or its init fails), its init text once the module is
 * live; the text gets its original bytes back first, since code may
 * still run there.  A gone site is never written to again (its text is
 * about to be freed, and the addresses may come back with another module), and it
 * leaves the address hash so that a new probe there gets a new site; it
 * stays on kprobe_sites until its probes are unregistered (a parked one,
 * without probes, until the reaper of register.c takes it).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "internal.h"

/*
 * Loaded modules with text no probe may go into (.noinstr.text,
 * .kprobes.text, NOKPROBE_SYMBOL() functions), for the blacklist file;
 * kprobe_mutex.  The refusal
 * itself reads the module's own fields (kprobe_check_module_place()).
 */
struct forbidden_module {
	struct list_head	node;
	struct module		*mod;
};

static LIST_HEAD(forbidden_modules);

static void note_forbidden_text(struct module *mod)
{
	struct forbidden_module *fm;

	if (!mod->noinstr_text_size && !mod->kprobes_text_size &&
	    !mod->num_kprobe_blacklist)
		return;
	fm = kmalloc(sizeof(*fm), GFP_KERNEL);
	if (!fm)
		return;		/* still refused, only not listed */
	fm->mod = mod;
	list_add_tail(&fm->node, &forbidden_modules);
}

static void forget_forbidden_text(struct module *mod)
{
	struct forbidden_module *fm, *tmp;

	list_for_each_entry_safe(fm, tmp, &forbidden_modules, node) {
		if (fm->mod == mod) {
			list_del(&fm->node);
			kfree(fm);
		}
	}
}

/*
 * The blacklist file's lines for module text: the module's NOKPROBE_SYMBOL()
 * functions, then every function of its .kprobes.text and .noinstr.text,
 * each named with the module, as upstream's file lists them.
 */
void kprobe_module_blacklist_show(struct seq_file *m, bool show_addr)
{
	struct forbidden_module *fm;
	unsigned int i;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(fm, &forbidden_modules, node) {
		struct module *mod = fm->mod;
		unsigned long text;

		for (i = 0; i < mod->num_kprobe_blacklist; i++)
			kprobe_blacklist_show_area(m, show_addr,
						   mod->kprobe_blacklist[i],
						   mod->kprobe_blacklist[i] + 1);
		text = (unsigned long)mod->kprobes_text_start;
		kprobe_blacklist_show_area(m, show_addr, text,
					   text + mod->kprobes_text_size);
		text = (unsigned long)mod->noinstr_text_start;
		kprobe_blacklist_show_area(m, show_addr, text,
					   text + mod->noinstr_text_size);
	}
	mutex_unlock(&kprobe_mutex);
}

/*
 * Text of @mod is about to go: all of it (GOING), or its init text once
 * the module is live.  Code may still run there for a while: async work
 * that the init started (do_init_module() waits for it only after the
 * LIVE notifiers), or that the exit or an async_probe init left
 * (delete_module() waits for it only after the GOING notifiers).  A gone
 * site leaves the address hash, and an int3 that no site owns is not
 * ours to handle, so put the original bytes back (undoing any jump
 * first) before the sites turn gone.  The text is still there: it is
 * freed after the notifiers.
 * Context: kprobe_mutex held.
 */
static bool in_module(unsigned long addr, void *mod)
{
	return within_module(addr, mod);
}

static bool in_module_init(unsigned long addr, void *mod)
{
	return within_module_init(addr, mod);
}

static void restore_text(struct module *mod, bool going)
{
	struct kprobe_site *site;
	unsigned long addr;
	bool any = false;

	list_for_each_entry(site, &kprobe_sites, all) {
		addr = (unsigned long)site->addr;
		if (site->gone || !(going ? within_module(addr, mod) :
					    within_module_init(addr, mod)))
			continue;
		kprobe_site_set_armed(site, false);
		kprobe_site_update_opt(site);
		any = true;
	}
	/* A bare probe's breakpoint likewise, while it is still hashed. */
	if (kprobe_bare_text_going(going ? in_module : in_module_init, mod))
		any = true;
	if (any)
		kprobe_sync_text();
}

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct module *mod = data;
	struct kprobe_site *site;
	unsigned long addr;
	bool going = val == MODULE_STATE_GOING;

	if (val == MODULE_STATE_COMING) {
		mutex_lock(&kprobe_mutex);
		note_forbidden_text(mod);
		/*
		 * A module whose load failed after COMING was set, before
		 * this notifier, was never announced GOING: nothing learnt
		 * from its text may describe this one's.
		 */
		arch_kprobe_text_gone();
		mutex_unlock(&kprobe_mutex);
		return NOTIFY_DONE;
	}
	if (!going && val != MODULE_STATE_LIVE)
		return NOTIFY_DONE;

	mutex_lock(&kprobe_mutex);
	if (going)
		forget_forbidden_text(mod);
	restore_text(mod, going);
	list_for_each_entry(site, &kprobe_sites, all) {
		addr = (unsigned long)site->addr;
		if (site->gone)
			continue;
		if (going ? within_module(addr, mod) :
			    within_module_init(addr, mod))
			kprobe_site_gone(site);
	}
	kprobe_bare_text_gone(going ? in_module : in_module_init, mod);
	arch_kprobe_text_gone();
	mutex_unlock(&kprobe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0,
};

static bool within_area(unsigned long addr, void *start, unsigned int size)
{
	return addr - (unsigned long)start < size;
}

/*
 * Text of @mod no probe may go into: its own .kprobes.text, its noinstr
 * text (which may run where a trap is not survivable: kvm_amd's
 * __svm_vcpu_run runs on the guest's GSBASE), and its NOKPROBE_SYMBOL()
 * functions (an entry names its function's first byte, or a byte of it).
 * Takes no lock, and looks @addr's function up once, whatever the number
 * of entries: kgdb may ask on its exception stack.
 */
static bool module_text_forbidden(struct module *mod, unsigned long addr)
{
	unsigned long *entry, size, offset, start;
	unsigned int i;

	if (within_area(addr, mod->kprobes_text_start, mod->kprobes_text_size) ||
	    within_area(addr, mod->noinstr_text_start, mod->noinstr_text_size))
		return true;
	if (!mod->num_kprobe_blacklist ||
	    !kallsyms_lookup_size_offset(addr, &size, &offset))
		return false;
	start = addr - offset;
	for (i = 0, entry = mod->kprobe_blacklist;
	     i < mod->num_kprobe_blacklist; i++, entry++)
		if (*entry - start < size)
			return true;
	return false;
}

/**
 * kprobe_module_text_forbidden() - is @addr module text no probe may go in
 * @addr: any address
 *
 * For within_kprobe_blacklist(), in any context: the module cannot go
 * while preemption is off.
 *
 * Return: true for a module's forbidden text, false for anything else.
 */
bool kprobe_module_text_forbidden(unsigned long addr)
{
	struct module *mod;
	bool ret = false;

	preempt_disable();
	mod = __module_text_address(addr);
	if (mod)
		ret = module_text_forbidden(mod, addr);
	preempt_enable();
	return ret;
}

/*
 * May a probe go at @addr in module text?  On success a reference on the
 * module is held in *@modp until the caller is done registering.
 *
 * Init text is refused with -ENOENT once the module is past COMING: the
 * LIVE notifier above has already turned its sites GONE, and the text is
 * freed soon after, so a new site there would later be written into freed
 * memory.  Both run under kprobe_mutex, and mod->state is LIVE before the
 * notifier is called, so a registration either sees LIVE or comes before
 * the notifier, which then takes its site too.
 */
int kprobe_check_module_place(unsigned long addr, struct module **modp)
{
	struct module *mod;
	int ret = 0;

	preempt_disable();
	mod = __module_text_address(addr);
	if (!mod || !try_module_get(mod))
		ret = -EINVAL;
	preempt_enable();
	if (ret)
		return ret;

	if (module_text_forbidden(mod, addr) || kprobe_refused_by_name(addr))
		ret = -EINVAL;
	else if (within_module_init(addr, mod) &&
		 READ_ONCE(mod->state) != MODULE_STATE_COMING)
		ret = -ENOENT;
	if (ret) {
		module_put(mod);
		return ret;
	}
	*modp = mod;
	return 0;
}

static int __init kprobes_modules_init(void)
{
	return register_module_notifier(&kprobes_module_nb);
}
early_initcall(kprobes_modules_init);
