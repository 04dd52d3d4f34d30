/* rules/series.h and rules/layers.h: the walk over release series that
 * install routes from and detect reports from, and which rules files
 * apply. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"
#include "rules/layers.h"
#include "rules/rules.h"
#include "rules/series.h"

#define BUNDLED TS_FIXTURES_DIR "/../rules.yaml"

static struct ts_rules *bundled(void) {
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_load_file(BUNDLED, &r, NULL, &e), TS_OK, "%s", e.detail);
  return r;
}

static void host_of(struct ts_host *h, const struct ts_host_overrides *ov) {
  memset(h, 0, sizeof *h);
  struct ts_error e = {0};
  cr_assert_eq(ts_host_apply_overrides(h, ov, &e), TS_OK, "%s", e.detail);
}

static void usable(const struct ts_constraint_set *s, char *buf, size_t cap) {
  buf[0] = '\0';
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable) {
      size_t n = strlen(buf);
      snprintf(buf + n, cap - n, "%s%s", n ? " " : "", s->backends[i].name);
    }
}

/* The newest series with a GPU build found the long way: a full compile
 * of each series, newest first (what detect did before it shared the walk
 * with install). */
static const char *newest_gpu_by_compile(const struct ts_rules *r, const struct ts_host *h,
                                         char *names, size_t cap) {
  names[0] = '\0';
  for (size_t i = r->nreleases; i-- > 0;) {
    struct ts_rules_options ro = {.release = r->releases[i].series};
    struct ts_constraint_set s;
    struct ts_error e = {0};
    cr_assert_eq(ts_rules_compile(r, h, &ro, &s, &e), TS_OK, "%s", e.detail);
    bool gpu = ts_rules_has_gpu_backend(&s);
    if (gpu)
      usable(&s, names, cap);
    ts_constraint_set_clear(&s);
    if (gpu)
      return r->releases[i].series;
  }
  return NULL;
}

Test(rules_series, newest_gpu_series_is_what_a_full_compile_finds) {
  struct ts_rules *r = bundled();
  struct ts_host_overrides hosts[] = {
      {.cuda_driver = "570.133.07", .compute_capabilities = "12.0"}, /* newest: cpu only */
      {.cuda_driver = "580.95.05", .compute_capabilities = "13.0"},
      {.cuda_driver = "580.95.05", .compute_capabilities = "9.0"},
      {.cuda_driver = "450.80.02", .compute_capabilities = "8.6"},
      {.rocm = TS_HOST_SET, .rocm_version = "6.2", .gfx = "gfx1100"},
      {.rocm = TS_HOST_SET, .rocm_version = "5.7", .gfx = "gfx90a"},
  };
  size_t older = 0;
  for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
    struct ts_host h;
    host_of(&h, &hosts[i]);
    struct ts_constraint_set newest, fb;
    struct ts_rules_options ro = {0};
    struct ts_error e = {0};
    cr_assert_eq(ts_rules_compile(r, &h, &ro, &newest, &e), TS_OK, "%s", e.detail);
    char want[256], got[256];
    const char *want_series = newest_gpu_by_compile(r, &h, want, sizeof want);
    const struct ts_rules_release *rel = ts_rules_newest_gpu_series(r, &h, false, &newest, &fb);
    cr_expect_eq(rel != NULL, want_series != NULL, "host %zu", i);
    if (rel && want_series) {
      cr_expect_str_eq(rel->series, want_series, "host %zu", i);
      cr_expect_str_eq(fb.release, want_series, "host %zu", i);
      usable(&fb, got, sizeof got);
      cr_expect_str_eq(got, want, "host %zu", i);
      older += newest.release && strcmp(rel->series, newest.release) != 0;
    } else {
      cr_expect_null(fb.release, "host %zu", i);
      cr_expect_eq(fb.nbackends, 0, "host %zu", i);
    }
    ts_constraint_set_clear(&fb);
    ts_constraint_set_clear(&newest);
    ts_host_clear(&h);
  }
  cr_expect_gt(older, 0, "no host needed an older series: the test proves nothing");
  ts_rules_free(r);
}

static bool count_series(void *ctx, const struct ts_rules_release *rel,
                         struct ts_constraint_set *backends) {
  (void)rel;
  (void)backends;
  return ++*(size_t *)ctx == 2;
}

Test(rules_series, walk_stops_when_asked) {
  struct ts_rules *r = bundled();
  cr_assert_gt(r->nreleases, 2);
  struct ts_host h;
  struct ts_host_overrides ov = {.cuda_driver = "580.95.05", .compute_capabilities = "9.0"};
  host_of(&h, &ov);
  struct ts_constraint_set s;
  struct ts_rules_options ro = {0};
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_compile(r, &h, &ro, &s, &e), TS_OK, "%s", e.detail);
  size_t n = 0;
  ts_rules_each_series(r, &h, false, &s, count_series, &n);
  cr_expect_eq(n, 2);
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  ts_rules_free(r);
}

Test(rules_layers, user_file_then_extra_files_then_without) {
  char dir[] = "/tmp/ts-rules-layers-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char cfg[512], extra[512];
  snprintf(cfg, sizeof cfg, "%s/torchsolve", dir);
  mkdir(cfg, 0755);
  snprintf(cfg, sizeof cfg, "%s/torchsolve/rules.yaml", dir);
  snprintf(extra, sizeof extra, "%s/extra.yaml", dir);
  setenv("XDG_CONFIG_HOME", dir, 1);
  setenv("XDG_DATA_HOME", dir, 1); /* no `rules update` file there */
  struct ts_rules *base = bundled();
  cr_assert_gt(base->nrules, 1);
  char *first = strdup(base->rules[0].id);
  size_t nbase = base->nrules;
  ts_rules_free(base);
  /* the missing user file is no error; a pattern matching nothing is */
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  struct ts_rules_layers l = {.bundled = BUNDLED};
  cr_assert_eq(ts_rules_load_layers(&l, &r, &e), TS_OK, "%s", e.detail);
  cr_expect_eq(r->nrules, nbase);
  ts_rules_free(r);
  const char *without[] = {first};
  l.without = without;
  l.nwithout = 1;
  cr_assert_eq(ts_rules_load_layers(&l, &r, &e), TS_OK, "%s", e.detail);
  cr_expect_eq(r->nrules, nbase - 1);
  ts_rules_free(r);
  const char *nothing[] = {"no-such-rule-*"};
  l.without = nothing;
  cr_expect_eq(ts_rules_load_layers(&l, &r, &e), TS_E_INVALID);
  cr_expect_null(r);
  cr_expect(strstr(e.detail, "no-such-rule-*") != NULL, "%s", e.detail);
  /* a broken user file is read (and named); an extra file after it too */
  FILE *f = fopen(cfg, "w");
  cr_assert_not_null(f);
  fputs("rules: [\n", f);
  fclose(f);
  l.without = NULL;
  l.nwithout = 0;
  e = (struct ts_error){0};
  cr_expect_neq(ts_rules_load_layers(&l, &r, &e), TS_OK);
  cr_expect(strstr(e.detail, "rules.yaml") != NULL, "%s", e.detail);
  unlink(cfg);
  const char *files[] = {extra};
  l.files = files;
  l.nfiles = 1;
  e = (struct ts_error){0};
  cr_expect_neq(ts_rules_load_layers(&l, &r, &e), TS_OK); /* extra.yaml is missing */
  cr_expect(strstr(e.detail, "extra.yaml") != NULL, "%s", e.detail);
  free(first);
  snprintf(cfg, sizeof cfg, "%s/torchsolve", dir);
  rmdir(cfg);
  rmdir(dir);
}
