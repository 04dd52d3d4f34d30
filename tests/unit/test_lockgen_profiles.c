/* Unit tests for lockgen/profiles.h: profile texts, the machine a profile
 * stands for, which profile a host runs, and one profile's part of a lock
 * for export.  Against the repository's rules.yaml. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/profile_choice.h"
#include "lockgen/profiles.h"

static struct ts_rules *rules(void) {
  struct ts_rules *r = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_rules_load_file(TS_FIXTURES_DIR "/../rules.yaml", &r, NULL, &err), TS_OK,
               "%s", err.detail);
  return r;
}

static struct ts_profile parse_ok(const struct ts_rules *r, const char *text) {
  struct ts_profile p;
  struct ts_error err = {0};
  cr_assert_eq(ts_profile_parse(text, r, &p, &err), TS_OK, "%s: %s", text, err.detail);
  return p;
}

Test(profiles, parse_names_and_facts) {
  struct ts_rules *r = rules();
  struct ts_profile p = parse_ok(r, "cu126:cc=6.1,8.9");
  cr_assert_str_eq(p.backend, "cu126");
  cr_assert_str_eq(p.extra, "cu126");
  cr_assert_str_eq(p.cc, "6.1,8.9");
  cr_assert_null(p.gfx);
  ts_profile_clear(&p);
  p = parse_ok(r, "rocm6.4:gfx=gfx942,gfx90a");
  cr_assert_str_eq(p.extra, "rocm6-4", "PEP 685 spells the extra without dots");
  cr_assert_str_eq(p.gfx, "gfx942,gfx90a");
  ts_profile_clear(&p);
  p = parse_ok(r, "cpu");
  cr_assert_null(p.cc);
  ts_profile_clear(&p);
  ts_rules_free(r);
}

Test(profiles, parse_refuses_what_it_cannot_honour) {
  struct ts_rules *r = rules();
  static const struct {
    const char *text, *why;
  } bad[] = {
      {"cu999", "'cu999' is no backend of rules.yaml (cpu, "},
      {"rocm6.4:cc=8.9", "cc= is for CUDA profiles"},
      {"cu126:gfx=gfx942", "gfx= is for ROCm profiles"},
      {"cu126:cc=", "cc= takes compute capabilities"},
      {"cu126:cc=8.9:cc=9.0", "cc= takes compute capabilities once"},
      {"rocm6.4:gfx=942", "gfx= takes AMD targets"},
      {"cu126:driver=580", "unknown fact 'driver'"},
      {"cu126:cc", "is not KEY=VALUE"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_profile p;
    struct ts_error err = {0};
    cr_assert_eq(ts_profile_parse(bad[i].text, r, &p, &err), TS_E_INVALID, "%s", bad[i].text);
    cr_assert(strstr(err.detail, bad[i].why), "%s: %s", bad[i].text, err.detail);
    cr_assert(strstr(err.detail, bad[i].text), "the message names the text: %s", err.detail);
    cr_assert_null(p.backend);
  }
  ts_rules_free(r);
}

static struct ts_host host_of(const struct ts_rules *r, const char *text) {
  struct ts_profile p = parse_ok(r, text);
  struct ts_host base = {.machine = "x86_64", .os = "linux", .glibc = "2.36"};
  struct ts_host h;
  struct ts_error err = {0};
  cr_assert_eq(ts_profile_host(&p, r, &base, &h, &err), TS_OK, "%s", err.detail);
  ts_profile_clear(&p);
  return h;
}

Test(profiles, host_has_the_backend_and_the_targets_machine) {
  struct ts_rules *r = rules();
  struct ts_host h = host_of(r, "cu126:cc=6.1,8.9");
  cr_assert(h.has_cuda && !h.has_rocm && !h.force_cpu);
  cr_assert_str_eq(h.cuda_version, "12.6");
  cr_assert_eq(h.ncuda_gpus, 2);
  cr_assert_str_eq(h.glibc, "2.36");
  cr_assert_str_eq(h.machine, "x86_64");
  ts_host_clear(&h);
  /* no gfx=: every target the backend's builds carry kernels for */
  h = host_of(r, "rocm6.4");
  const struct ts_rules_backend *b = ts_rules_find_backend(r, "rocm6.4");
  cr_assert(h.has_rocm && !h.has_cuda);
  cr_assert_eq(h.nrocm_gpus, b->ngfx);
  ts_host_clear(&h);
  h = host_of(r, "rocm6.4:gfx=gfx942");
  cr_assert_eq(h.nrocm_gpus, 1);
  cr_assert_str_eq(h.rocm_gpus[0].gfx, "gfx942");
  ts_host_clear(&h);
  h = host_of(r, "cpu");
  cr_assert(h.force_cpu);
  ts_host_clear(&h);
  ts_rules_free(r);
}

#define H64(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
               c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
#define WHEEL(file, h) \
  "wheels = [{url = \"https://x/" file "\", hashes = {sha256 = \"" H64(h) "\"}}]\n"

/* As lock --profile writes it: cpu the default, cu126 and rocm6-4. */
static const char *FLEET =
    "lock-version = \"1.0\"\ncreated-by = \"t\"\nrequires-python = \">=3.10\"\n"
    "extras = [\"cpu\", \"cu126\", \"rocm6-4\"]\n"
    "[[packages]]\nname = \"numpy\"\nversion = \"2.1.0\"\n"
    WHEEL("numpy-2.1.0-py3-none-any.whl", "a")
    "[[packages]]\nname = \"torch\"\nversion = \"2.9.1+cpu\"\n"
    "marker = \"'cpu' in extras or ('cu126' not in extras and 'rocm6-4' not in extras)\"\n"
    WHEEL("torch-2.9.1%2Bcpu-py3-none-any.whl", "b")
    "[[packages]]\nname = \"torch\"\nversion = \"2.9.1+cu126\"\n"
    "marker = \"'cu126' in extras and 'cpu' not in extras and 'rocm6-4' not in extras\"\n"
    WHEEL("torch-2.9.1%2Bcu126-py3-none-any.whl", "c")
    "[[packages]]\nname = \"torch\"\nversion = \"2.9.1+rocm6.4\"\n"
    "marker = \"'rocm6-4' in extras and 'cpu' not in extras and 'cu126' not in extras\"\n"
    WHEEL("torch-2.9.1%2Brocm6.4-py3-none-any.whl", "d")
    "[[packages]]\nname = \"colorama\"\nversion = \"0.4.6\"\n"
    "marker = \"sys_platform == 'win32'\"\n"
    WHEEL("colorama-0.4.6-py3-none-any.whl", "e")
    "[tool.torchsolve]\ndefault-profile = \"cpu\"\n"
    "[tool.torchsolve.profiles.cpu]\nbackend = \"cpu\"\n"
    "[tool.torchsolve.profiles.cu126]\nbackend = \"cu126\"\n"
    "[tool.torchsolve.profiles.rocm6-4]\nbackend = \"rocm6.4\"\n";

static struct ts_pylock *fleet(void) {
  struct ts_pylock *l = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(FLEET, strlen(FLEET), "t", &l, &err), TS_OK, "%s", err.detail);
  return l;
}

static const struct ts_marker_env env312 = {
    .implementation_name = "cpython", .implementation_version = "3.12.0",
    .os_name = "posix", .platform_machine = "x86_64",
    .platform_python_implementation = "CPython", .platform_system = "Linux",
    .python_full_version = "3.12.0", .python_version = "3.12", .sys_platform = "linux"};

static const char *chosen_on(const struct ts_rules *r, const char *machine,
                             struct ts_profile_choice *c) {
  struct ts_pylock *l = fleet();
  struct ts_host h = host_of(r, machine);
  const char *t[] = {"py3-none-any"};
  struct ts_tagset *tags = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_tagset_from_strings(t, 1, &tags, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(ts_profile_choose(l, r, &h, &env312, tags, c, &err), TS_OK, "%s", err.detail);
  ts_tagset_free(tags);
  ts_host_clear(&h);
  static char name[32];
  snprintf(name, sizeof name, "%s", c->chosen < c->n ? c->v[c->chosen].profile->name : "-");
  for (size_t i = 0; i < c->n; i++)
    c->v[i].profile = NULL; /* into l, freed here */
  ts_pylock_free(l);
  return name;
}

Test(profiles, choose_the_best_profile_the_host_runs) {
  struct ts_rules *r = rules();
  struct ts_profile_choice c;
  cr_assert_str_eq(chosen_on(r, "cu126:cc=9.0", &c), "cu126");
  cr_assert_eq(c.chosen, 0, "nothing better was passed over");
  ts_profile_choice_clear(&c);
  cr_assert_str_eq(chosen_on(r, "rocm6.4:gfx=gfx942", &c), "rocm6-4");
  cr_assert_eq(c.chosen, 1);
  cr_assert_gt(c.v[0].nfindings, 0, "the CUDA profile ranks first and is passed over");
  ts_profile_choice_clear(&c);
  cr_assert_str_eq(chosen_on(r, "cpu", &c), "cpu");
  cr_assert_eq(c.chosen, 2);
  ts_profile_choice_clear(&c);
  ts_rules_free(r);
}

/* One profile's lock made of the fleet's entries of these versions, the
 * extras markers dropped (as its own resolution would give them). */
static struct ts_pylock *profile_lock(const struct ts_pylock *f, const char *const *versions,
                                      size_t n) {
  struct ts_pylock *l = ts_pylock_new();
  for (size_t i = 0; i < f->npackages; i++)
    for (size_t k = 0; k < n; k++)
      if (strcmp(f->packages[i].version, versions[k]) == 0) {
        struct ts_pylock_package *p = ts_pylock_copy_package(l, &f->packages[i]);
        cr_assert_not_null(p);
        if (strcmp(p->name, "torch") == 0) {
          free(p->marker);
          p->marker = NULL;
        }
      }
  return l;
}

static char *merged_text(const struct ts_profile *p, struct ts_pylock *const *locks) {
  struct ts_pylock *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_plan_profiles_merge(p, 3, locks, &m, &err), TS_OK, "%s", err.detail);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_pylock_write(m, &b, &err), TS_OK, "%s", err.detail);
  ts_pylock_free(m);
  return ts_buf_take(&b, NULL);
}

/* An entry of the default and one other profile (colorama of cpu and
 * rocm6-4) is written "'cpu' in extras or 'cu126' not in extras", not as
 * the or of their two conditions; the order of the profiles after the first changes no
 * byte. */
Test(profiles, merge_says_the_default_and_one_other_simply) {
  struct ts_pylock *f = fleet();
  static const char *const cpu[] = {"2.1.0", "2.9.1+cpu", "0.4.6"};
  static const char *const cu126[] = {"2.1.0", "2.9.1+cu126"};
  static const char *const rocm[] = {"2.1.0", "2.9.1+rocm6.4", "0.4.6"};
  struct ts_pylock *l[3] = {profile_lock(f, cpu, 3), profile_lock(f, cu126, 2),
                            profile_lock(f, rocm, 3)};
  struct ts_profile p[3] = {{.backend = (char *)"cpu", .extra = (char *)"cpu"},
                            {.backend = (char *)"cu126", .extra = (char *)"cu126"},
                            {.backend = (char *)"rocm6.4", .extra = (char *)"rocm6-4"}};
  char *t = merged_text(p, l);
  cr_assert(strstr(t, "name = \"colorama\"\nversion = \"0.4.6\"\n"
                      "marker = \"sys_platform == 'win32' and ('cpu' in extras or "
                      "'cu126' not in extras)\"\n"),
            "%s", t);
  cr_assert(strstr(t, "version = \"2.9.1+cu126\"\n"
                      "marker = \"'cu126' in extras and 'cpu' not in extras and "
                      "'rocm6-4' not in extras\"\n"),
            "%s", t);
  struct ts_profile q[3] = {p[0], p[2], p[1]};
  struct ts_pylock *m[3] = {l[0], l[2], l[1]};
  char *u = merged_text(q, m);
  cr_assert_str_eq(t, u);
  free(t);
  free(u);
  for (int i = 0; i < 3; i++)
    ts_pylock_free(l[i]);
  ts_pylock_free(f);
}
