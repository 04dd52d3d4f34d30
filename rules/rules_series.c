/* The backends of each torch release series on a host: see series.h. */
#include "rules/series.h"

#include <string.h>

#include "core/str.h"

void ts_rules_each_series(const struct ts_rules *rules, const struct ts_host *host,
                          bool ignore_host, const struct ts_constraint_set *compiled,
                          ts_rules_series_fn fn, void *ctx) {
  bool stop = false;
  for (size_t i = rules ? rules->nreleases : 0; i-- > 0 && !stop;) {
    const struct ts_rules_release *rel = &rules->releases[i];
    struct ts_rules_options ro = {.ignore_host = ignore_host, .release = rel->series};
    struct ts_constraint_set s = {0};
    struct ts_error ignore = {0};
    if (ts_rules_release_backends(rules, host, &ro, compiled, &s, &ignore) == TS_OK)
      stop = fn(ctx, rel, &s);
    ts_constraint_set_clear(&s);
  }
}

bool ts_rules_has_gpu_backend(const struct ts_constraint_set *s) {
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable && strcmp(s->backends[i].kind, "cpu") != 0)
      return true;
  return false;
}

struct first_gpu {
  const struct ts_rules_release *rel;
  struct ts_constraint_set *out;
};

static bool take_first_gpu(void *ctx, const struct ts_rules_release *rel,
                           struct ts_constraint_set *backends) {
  struct first_gpu *f = ctx;
  if (!ts_rules_has_gpu_backend(backends))
    return false;
  f->rel = rel;
  if (f->out) {
    f->out->backends = backends->backends;
    f->out->nbackends = backends->nbackends;
    f->out->release = ts_xstrdup(rel->series);
    backends->backends = NULL;
    backends->nbackends = 0;
  }
  return true;
}

const struct ts_rules_release *ts_rules_newest_gpu_series(const struct ts_rules *rules,
                                                          const struct ts_host *host,
                                                          bool ignore_host,
                                                          const struct ts_constraint_set *compiled,
                                                          struct ts_constraint_set *out) {
  if (out)
    memset(out, 0, sizeof *out);
  struct first_gpu f = {.out = out};
  ts_rules_each_series(rules, host, ignore_host, compiled, take_first_gpu, &f);
  return f.rel;
}
