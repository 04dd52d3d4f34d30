/*
 * lockgen/lock.h — a resolution as a PEP 751 lock, and the entry helpers
 * that lock, lock --profile and lock --universal share.
 */
#pragma once

#include "core/error.h"
#include "lock/pylock.h"
#include "plan/plan.h"

/* The resolution as a PEP 751 lock: per package the wheel chosen for the
 * target (url or path, size, upload-time, sha256: the --hash or index one,
 * else the file's own, fetched into the wheel cache), its dependencies
 * among the locked packages, its index without credentials; the target as
 * `environments` and `requires-python`; the host facts and the ids of the
 * rules that concern the locked packages under [tool.torchsolve].
 * `output` is where the lock will be written ("-" or NULL: stdout): a
 * local wheel's path is written relative to its directory.  The writer
 * sorts everything, so the same resolution gives the same bytes.
 * TS_E_UNSUPPORTED when only an sdist fits; *out is freed by the caller
 * (ts_pylock_free). */
enum ts_code ts_plan_to_pylock(struct ts_plan_result *r, const char *output,
                               struct ts_pylock **out, struct ts_error *err);

/* ---- lock entries, shared by lock and lock --universal ----------------- */

/* Appends to *names (malloc'd strings, *n long; a realloc'd array) the
 * locked projects that the item's metadata requires under env (with the
 * extras it was resolved with), each once.  Unreadable metadata adds
 * none. */
void ts_plan_item_dependencies(const struct ts_plan_item *pi, const struct ts_resolution *res,
                               const struct ts_marker_env *env, char ***names, size_t *n);
/* Sorts the names into p's `dependencies` and frees them and the array. */
void ts_plan_lock_dependencies(struct ts_pylock_package *p, char **names, size_t n);
/* Records file f of the item on p (a wheel, else the sdist) with its
 * sha256 (ts_plan_to_pylock's rules); a local wheel's path relative to
 * output. */
enum ts_code ts_plan_lock_file(struct ts_plan_result *res, const struct ts_plan_item *pi,
                               const struct ts_index_file *f, const char *output,
                               struct ts_pylock_package *p, struct ts_error *err);
/* PEP 825: a release with variant wheels is locked with every variant
 * wheel of the chosen wheel's tags, installable on this host or not (those
 * p does not list yet), and its variants.json ([packages.variants-json],
 * unless p has one), so that sync chooses the variant for the host it
 * runs on.  Nothing for a release without variant wheels. */
enum ts_code ts_plan_lock_variant_wheels(struct ts_plan_result *res,
                                         const struct ts_plan_item *pi,
                                         const struct ts_index_file *chosen, const char *output,
                                         struct ts_pylock_package *p, struct ts_error *err);
/* p's `index`: the item's index without credentials (none for files). */
void ts_plan_lock_index(struct ts_pylock_package *p, const struct ts_plan_item *pi);
/* The host facts and the ids of the rules on the resolved packages. */
void ts_plan_lock_facts_and_rules(const struct ts_plan_result *res, struct ts_pylock *lock);
/* The facts of a compiled rule set as the lock's host facts. */
void ts_plan_lock_facts(const struct ts_constraint_set *s, struct ts_pylock *lock);
/* Only the ids of the rules on the resolved packages (a universal lock:
 * no one host's facts). */
void ts_plan_lock_rule_ids(const struct ts_plan_result *res, struct ts_pylock *lock);
