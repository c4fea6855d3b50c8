/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The targets of the arm64 paths suite (paths_kunit_targets.S), and the
 * address of each one's probed instruction.
 */
#ifndef _ARM64_KPROBES_PATHS_KUNIT_H
#define _ARM64_KPROBES_PATHS_KUNIT_H

#include <linux/types.h>

long kap_add(long x);
u64 kap_adr(void);
u64 kap_adrp(void);
u64 kap_ldr_x(void);
u64 kap_ldr_w(void);
u64 kap_ldrsw(void);
long kap_bcond(long x);
long kap_cbz(long x);
long kap_cbnz_w(long x);
long kap_tbnz(long x);
long kap_tbz(long x);
u64 kap_b(void);
u64 kap_leaf(void);
u64 kap_bl(void);
long kap_blr(u64 (*fn)(void));
u64 kap_br(void);
long kap_ldp(long *p);
long *kap_ldr_post(long *p, long *out);
void kap_str(long *p, long v);
extern const u32 kap_adr_target;

extern const unsigned long kap_add_at, kap_adr_at, kap_adrp_at;
extern const unsigned long kap_ldr_x_at, kap_ldr_w_at, kap_ldrsw_at;
extern const unsigned long kap_bcond_at, kap_cbz_at, kap_cbnz_w_at;
extern const unsigned long kap_tbnz_at, kap_tbz_at, kap_b_at;
extern const unsigned long kap_leaf_ret_at, kap_bl_at, kap_blr_at, kap_br_at;
extern const unsigned long kap_ldp_at, kap_ldr_post_at, kap_str_at;
extern const unsigned long kap_mrs_daif_at;
extern const unsigned long kap_excl_ldxr_at, kap_excl_mid_at;
extern const unsigned long kap_excl_stxr_at, kap_excl_after_at;
extern const unsigned long kap_msr_daifset_at, kap_svc_at, kap_brk_at;
extern const unsigned long kap_eret_at, kap_ldr_lit_fp_at;

#endif /* _ARM64_KPROBES_PATHS_KUNIT_H */
