/*
 * plan/torch_backend.h: which index URLs are PyTorch variant indexes (the
 * user's choice of build and server), and the machine a named backend
 * stands for on a host without such a GPU.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "plan/torch_backend.h"

static struct ts_rules *rules;

static void load(void) {
  struct ts_error err = {0};
  cr_assert_eq(ts_rules_load_file(TS_RULES_SOURCE, &rules, NULL, &err), TS_OK, "%s",
               err.detail);
}

static void unload(void) { ts_rules_free(rules); }

TestSuite(plan_torch_backend, .init = load, .fini = unload);

static void expect(const char *url, const char *id, const char *base) {
  char *got = NULL;
  const struct ts_rules_backend *b = ts_torch_backend_of_url(rules, url, &got);
  if (!id) {
    cr_assert_null(b, "%s is no variant index", url);
    cr_assert_null(got);
    return;
  }
  cr_assert_not_null(b, "%s", url);
  cr_assert_str_eq(b->id, id);
  cr_assert_str_eq(got, base);
  free(got);
}

Test(plan_torch_backend, variant_urls) {
  expect("https://download.pytorch.org/whl/cu126", "cu126", "https://download.pytorch.org/whl");
  expect("https://download.pytorch.org/whl/rocm6.4/", "rocm6.4",
         "https://download.pytorch.org/whl");
  expect("http://127.0.0.1:8080/mirror/whl/cpu", "cpu", "http://127.0.0.1:8080/mirror/whl");
  expect("https://download.pytorch.org/whl/nightly/cu130", "cu130",
         "https://download.pytorch.org/whl/nightly");
}

Test(plan_torch_backend, other_urls) {
  expect("https://pypi.org/simple", NULL, NULL);
  expect("https://download.pytorch.org/whl", NULL, NULL);
  expect("https://download.pytorch.org/whl/cu999", NULL, NULL); /* no such backend */
  expect("https://mirror.example/cu126", NULL, NULL);           /* no whl segment */
  expect("https://mirror.example/whl/cu126?x=1", NULL, NULL);
  expect("cu126", NULL, NULL);
}

Test(plan_torch_backend, machine_of_a_backend) {
  struct ts_host h;
  memset(&h, 0, sizeof h);
  const struct ts_rules_backend *b = ts_rules_find_backend(rules, "rocm6.4");
  cr_assert_not_null(b);
  cr_assert_not(ts_torch_backend_checkable(b, &h));
  struct ts_error err = {0};
  cr_assert_eq(ts_torch_backend_host(b, NULL, NULL, "--torch-backend rocm6.4", &h, &err), TS_OK, "%s",
               err.detail);
  cr_assert_str_eq(h.rocm_version, "6.4");
  cr_assert_eq(h.nrocm_gpus, b->ngfx);
  cr_assert(ts_torch_backend_checkable(b, &h));
  cr_assert_str_eq(ts_host_source_of(&h, "rocm.gpus"), "--torch-backend rocm6.4");
  ts_host_clear(&h);
}
