/*
 * rules/layers.h — which rules files apply, in what order.  The facts in
 * force (the bundled rules.yaml, or the newer file `torchsolve rules
 * update` kept: origin.h), then the user's file
 * ($XDG_CONFIG_HOME/torchsolve/rules.yaml, else
 * ~/.config/torchsolve/rules.yaml) when present, then every extra file
 * (--rules), each merged over the previous by id (ts_rules_merge); then
 * the rules whose id matches a pattern are dropped (--without-rule).
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "rules/builtin.h"
#include "rules/rules.h"

struct ts_rules_layers {
  const char *bundled;        /* the bundled rules.yaml */
  const char *const *files;   /* merged in this order */
  size_t nfiles;
  /* fnmatch patterns of rule ids, each value one pattern or a
   * comma-separated list; TS_E_INVALID when one matches no rule */
  const char *const *without;
  size_t nwithout;
  const char *cache_root;     /* rules/rules_cache.h; NULL: every file parsed */
  /* rules/builtin.h: the parse of bytes known at build time; NULL: none */
  const struct ts_rules_builtin *builtin;
};

/* The layered rules, with the in-force file's provenance.  The caller
 * frees *out with ts_rules_free; NULL on failure. */
enum ts_code ts_rules_load_layers(const struct ts_rules_layers *l, struct ts_rules **out,
                                  struct ts_error *err);
