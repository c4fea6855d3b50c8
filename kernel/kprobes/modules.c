// SPDX-License-Identifier: GPL-2.0
/*
 * Probes in module text.
 *
 * A module's probes turn GONE when its text goes away: all of it when the
 * module is unloaded (or its init fails), its init text once the module is
 * live.  A gone site is never written to again (its text is about to be
 * freed, and the addresses may come back with another module), and it
 * leaves the address hash so that a new probe there gets a new site; it
 * stays on kprobe_sites until its probes are unregistered.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>

#include "internal.h"

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct module *mod = data;
	struct kprobe_site *site;
	unsigned long addr;
	bool going = val == MODULE_STATE_GOING;

	if (!going && val != MODULE_STATE_LIVE)
		return NOTIFY_DONE;

	mutex_lock(&kprobe_mutex);
	list_for_each_entry(site, &kprobe_sites, all) {
		addr = (unsigned long)site->addr;
		if (site->gone)
			continue;
		if (going ? within_module(addr, mod) :
			    within_module_init(addr, mod))
			kprobe_site_gone(site);
	}
	mutex_unlock(&kprobe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block kprobes_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0,
};

/*
 * May a probe go at @addr in module text?  On success a reference on the
 * module is held in *@modp until the caller is done registering.
 */
int kprobe_check_module_place(unsigned long addr, struct module **modp)
{
	struct module *mod;
	unsigned long *entry, size, offset;
	unsigned int i;
	int ret = 0;

	preempt_disable();
	mod = __module_text_address(addr);
	if (!mod || !try_module_get(mod))
		ret = -EINVAL;
	preempt_enable();
	if (ret)
		return ret;

	/* The module's own .kprobes.text and NOKPROBE_SYMBOL() functions. */
	if (addr - (unsigned long)mod->kprobes_text_start < mod->kprobes_text_size)
		ret = -EINVAL;
	for (i = 0, entry = mod->kprobe_blacklist;
	     !ret && i < mod->num_kprobe_blacklist; i++, entry++)
		if (kallsyms_lookup_size_offset(*entry, &size, &offset) &&
		    addr - (*entry - offset) < size)
			ret = -EINVAL;
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
