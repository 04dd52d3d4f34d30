/* Unit tests for lock/pylock.h: PEP 751 reading, validation, writing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "lock/pylock.h"
#include "pep/requirement.h"

#define SPEC_EXAMPLE \
  TS_SHARED_DIR "/conformance/packaging/tests/pylock/pylock.spec-example.toml"

static char *write_lock(const struct ts_pylock *l) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_write(l, &b, &err), TS_OK, "%s", err.detail);
  return ts_buf_take(&b, NULL);
}

static struct ts_pylock *parse_ok(const char *s) {
  struct ts_pylock *l = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(s, strlen(s), "t.toml", &l, &err), TS_OK,
               "%s\n--\n%s", err.detail, s);
  return l;
}

static void parse_bad(const char *s, enum ts_code code, const char *frag) {
  struct ts_pylock *l = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_pylock_parse(s, strlen(s), "t.toml", &l, &err);
  cr_assert_eq(rc, code, "expected %s, got %s (%s) for:\n%s",
               ts_code_name(code), ts_code_name(rc), err.detail, s);
  cr_assert_null(l);
  cr_assert(strstr(err.detail, frag), "detail '%s' lacks '%s'", err.detail,
            frag);
}

static struct ts_pylock *read_spec(void) {
  struct ts_pylock *l = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_pylock_read_file(SPEC_EXAMPLE, &l, &err);
  if (rc == TS_E_NOT_FOUND)
    cr_skip_test("%s absent", SPEC_EXAMPLE);
  cr_assert_eq(rc, TS_OK, "%s", err.detail);
  return l;
}

Test(pylock, reads_the_spec_example) {
  struct ts_pylock *l = read_spec();
  cr_assert_str_eq(l->lock_version, "1.0");
  cr_assert_not(l->newer_minor);
  cr_assert_str_eq(l->created_by, "mousebender");
  cr_assert_str_eq(l->requires_python, "==3.12.*");
  cr_assert_eq(l->nenvironments, 2);
  cr_assert_str_eq(l->environments[1], "sys_platform == \"linux\"");
  cr_assert_eq(l->npackages, 3);
  const struct ts_pylock_package *attrs = &l->packages[0];
  cr_assert_str_eq(attrs->name, "attrs");
  cr_assert_str_eq(attrs->version, "25.1.0");
  cr_assert_eq(attrs->nwheels, 1);
  cr_assert_eq(attrs->wheels[0].size, 63152);
  cr_assert_str_eq(attrs->wheels[0].upload_time,
                   "2025-01-25T11:30:10.164985+00:00");
  cr_assert_str_eq(ts_pylock_file_sha256(&attrs->wheels[0]),
                   "c75a69e28a550a7e93789579c22aa26b0f5b83b75dc4e08fe092980051e1090a");
  cr_assert_not_null(attrs->attestation_identities);
  cr_assert_eq(attrs->attestation_identities->nitems, 1);
  const struct ts_pylock_package *cattrs = &l->packages[1];
  cr_assert_str_eq(cattrs->index, "https://pypi.org/simple");
  cr_assert_eq(cattrs->dependencies->nitems, 1);
  cr_assert_str_eq(ts_toml_get(cattrs->dependencies->items[0], "name")->str,
                   "attrs");
  cr_assert_eq(l->packages[2].nwheels, 2);
  cr_assert_not_null(ts_toml_get(l->tool, "mousebender"));
  cr_assert_eq(l->nhost_facts, 0);
  ts_pylock_free(l);
}

/* The environments are markers: they parse and evaluate with pep/. */
Test(pylock, environments_are_markers) {
  struct ts_pylock *l = read_spec();
  struct ts_marker_env linux_env = {.sys_platform = "linux"};
  bool hits[2];
  for (size_t i = 0; i < 2; i++) {
    struct ts_marker *m = NULL;
    cr_assert_eq(ts_marker_parse(l->environments[i],
                                 strlen(l->environments[i]), &m, NULL),
                 TS_OK);
    hits[i] = ts_marker_eval(m, &linux_env, NULL);
    ts_marker_free(m);
  }
  cr_assert_not(hits[0]);
  cr_assert(hits[1]);
  ts_pylock_free(l);
}

/* read -> write -> read -> write: same model, same bytes. */
Test(pylock, spec_example_roundtrip) {
  struct ts_pylock *l = read_spec();
  char *w1 = write_lock(l);
  struct ts_pylock *back = parse_ok(w1);
  char *w2 = write_lock(back);
  cr_assert_str_eq(w1, w2);
  cr_assert_eq(back->npackages, l->npackages);
  for (size_t i = 0; i < l->npackages; i++) {
    const struct ts_pylock_package *a = &l->packages[i], *b = &back->packages[i];
    cr_assert_str_eq(a->name, b->name);
    cr_assert_str_eq(a->version, b->version);
    cr_assert_eq(a->nwheels, b->nwheels);
    for (size_t k = 0; k < a->nwheels; k++) {
      /* the writer sorts wheels by name: find b's counterpart */
      bool found = false;
      for (size_t j = 0; j < b->nwheels; j++)
        if (strcmp(a->wheels[k].name, b->wheels[j].name) == 0) {
          found = true;
          cr_assert_str_eq(a->wheels[k].url, b->wheels[j].url);
          cr_assert_eq(a->wheels[k].size, b->wheels[j].size);
          cr_assert_str_eq(a->wheels[k].upload_time, b->wheels[j].upload_time);
          cr_assert_str_eq(ts_pylock_file_sha256(&a->wheels[k]),
                           ts_pylock_file_sha256(&b->wheels[j]));
        }
      cr_assert(found);
    }
  }
  cr_assert(ts_toml_equal(l->tool, back->tool));
  /* upload-time stays a TOML date-time, not a string */
  cr_assert(strstr(w1, "upload-time = 2025-01-25T11:30:10.164985+00:00\n"));
  cr_assert(strstr(w1, "run-on = 2025-03-06T12:28:57.760769\n"));
  cr_assert_eq(ts_pylock_validate(back, NULL), TS_OK);
  free(w1);
  free(w2);
  ts_pylock_free(l);
  ts_pylock_free(back);
}

Test(pylock, other_writers_shapes) {
  static const char *const files[] = {"pylock.uv-style.toml",
                                      "pylock.pip-style.toml"};
  for (size_t f = 0; f < 2; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/lock/%s", TS_FIXTURES_DIR, files[f]);
    struct ts_pylock *l = NULL;
    struct ts_error err = {0};
    cr_assert_eq(ts_pylock_read_file(path, &l, &err), TS_OK, "%s", err.detail);
    char *w1 = write_lock(l);
    struct ts_pylock *back = parse_ok(w1);
    char *w2 = write_lock(back);
    cr_assert_str_eq(w1, w2);
    if (f == 0) {
      const struct ts_pylock_package *torch = &l->packages[1];
      cr_assert_str_eq(torch->version, "2.9.1+cu130");
      cr_assert_str_eq(torch->marker, "sys_platform == 'linux'");
      cr_assert_eq(torch->nwheels, 2);
      cr_assert_null(torch->wheels[0].name);
      size_t n;
      const char *fn = ts_pylock_file_name(&torch->wheels[0], &n);
      cr_assert_eq(strncmp(fn, "torch-2.9.1%2Bcu130-cp312", 25), 0);
    } else {
      cr_assert_eq(l->npackages, 4);
      cr_assert_eq(l->packages[0].directory->editable, 0);
      cr_assert_str_eq(l->packages[1].vcs->commit_id,
                       "0123456789abcdef0123456789abcdef01234567");
      cr_assert_eq(l->packages[2].archive->size, 1234);
      cr_assert_str_eq(l->packages[3].sdist->name, "six-1.17.0.tar.gz");
      cr_assert_not_null(ts_toml_get(l->packages[3].tool, "pip"));
    }
    free(w1);
    free(w2);
    ts_pylock_free(l);
    ts_pylock_free(back);
  }
}

#define HEAD "lock-version = '1.0'\ncreated-by = 'x'\n"
#define WHEEL_OK                                                             \
  "[[packages.wheels]]\nurl = 'https://h/a-1.0-py3-none-any.whl'\n"          \
  "hashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000000'}\n"

Test(pylock, validation) {
  parse_bad("created-by = 'x'\npackages = []\n", TS_E_PARSE,
            "lock-version: missing required value");
  parse_bad("lock-version = '2.0'\ncreated-by = 'x'\npackages = []\n",
            TS_E_UNSUPPORTED, "not supported");
  parse_bad("lock-version = '1.0'\npackages = []\n", TS_E_PARSE, "created-by");
  parse_bad(HEAD, TS_E_PARSE, "packages: missing required value");
  parse_bad(HEAD "packages = {}\n", TS_E_PARSE, "expected an array");
  parse_bad(HEAD "[[packages]]\nname = 'A_B'\n" WHEEL_OK, TS_E_PARSE,
            "not normalized");
  parse_bad(HEAD "[[packages]]\nname = 'a'\nversion = 'one'\n" WHEEL_OK,
            TS_E_PARSE, "packages[0].version");
  parse_bad(HEAD "[[packages]]\nname = 'a'\nmarker = 'python_version >>'\n"
                 WHEEL_OK,
            TS_E_PARSE, "invalid marker");
  parse_bad(HEAD "[[packages]]\nname = 'a'\nrequires-python = '>=x'\n" WHEEL_OK,
            TS_E_PARSE, "requires-python");
  parse_bad(HEAD "environments = ['os_name ==']\npackages = []\n", TS_E_PARSE,
            "environments");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n", TS_E_PARSE,
            "exactly one of vcs, directory, archive");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[packages.directory]\npath = '.'\n"
                 WHEEL_OK,
            TS_E_PARSE, "none of vcs, directory, archive");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "url = 'https://h/a-1.0-py3-none-any.whl'\n",
            TS_E_PARSE, "t.toml:5:1: packages[0].wheels[0].hashes: missing required value");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "url = 'https://h/a-1.0-py3-none-any.whl'\nhashes = {}\n",
            TS_E_PARSE, "at least one hash");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "url = 'https://h/a-1.0-py3-none-any.whl'\nhashes = {sha256 = 'abc'}\n",
            TS_E_PARSE, "64 hex digits");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "hashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000000'}\n",
            TS_E_PARSE, "path or url");
  parse_bad(HEAD "[[packages]]\nname = 'b'\n" WHEEL_OK, TS_E_PARSE,
            "is not a file of package 'b'");
  parse_bad(HEAD "[[packages]]\nname = 'a'\nversion = '2.0'\n" WHEEL_OK,
            TS_E_PARSE, "is not version 2.0");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "url = 'https://h/not-a-wheel.zip'\nhashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000000'}\n",
            TS_E_PARSE, "wheel");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "url = 'https://h/a-1.0-py3-none-any.whl'\nupload-time = '2025-01-01'\n"
                 "hashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000000'}\n",
            TS_E_PARSE, "upload-time");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[[packages.wheels]]\n"
                 "url = 'https://h/a-1.0-py3-none-any.whl'\nsize = -1\n"
                 "hashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000000'}\n",
            TS_E_PARSE, "size");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n" WHEEL_OK
                 "[[packages.attestation-identities]]\nrepository = 'r'\n",
            TS_E_PARSE, "kind");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[packages.vcs]\ntype = 'git'\n"
                 "url = 'https://h/r.git'\n",
            TS_E_PARSE, "commit-id");
  parse_bad(HEAD "[[packages]]\nname = 'a'\n[packages.sdist]\n"
                 "url = 'https://h/a.tar.gz'\n"
                 "hashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000000'}\n",
            TS_E_PARSE, "sdist filename");
  parse_bad(HEAD "extras = ['Not_Normal']\npackages = []\n", TS_E_PARSE,
            "not normalized");
  parse_bad(HEAD "packages = []\n[tool.torchsolve]\nrules = [1]\n", TS_E_PARSE,
            "tool.torchsolve.rules");
  /* TOML errors come through with the file name and position */
  parse_bad(HEAD "packages = [\n", TS_E_PARSE, "t.toml:");
  /* newer minor versions read, flagged */
  struct ts_pylock *l = parse_ok("lock-version = '1.1'\ncreated-by = 'x'\n"
                                 "packages = []\n");
  cr_assert(l->newer_minor);
  ts_pylock_free(l);
}

static struct ts_pylock *build(bool reversed) {
  struct ts_pylock *l = ts_pylock_new();
  cr_assert_not_null(l);
  struct {
    const char *name, *version, *file, *hash;
  } pk[] = {
      {"torch", "2.9.1+cu130", "torch-2.9.1+cu130-cp312-cp312-manylinux_2_28_x86_64.whl",
       "1111111111111111111111111111111111111111111111111111111111111111"},
      {"Torch", "2.10.0", "torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl",
       "2222222222222222222222222222222222222222222222222222222222222222"},
      {"numpy", "2.2.3", "numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.whl",
       "3333333333333333333333333333333333333333333333333333333333333333"},
      {"filelock", "3.20.0", "filelock-3.20.0-py3-none-any.whl",
       "4444444444444444444444444444444444444444444444444444444444444444"},
  };
  size_t n = sizeof pk / sizeof pk[0];
  for (size_t k = 0; k < n; k++) {
    size_t i = reversed ? n - 1 - k : k;
    struct ts_pylock_package *p = ts_pylock_add_package(l, pk[i].name, pk[i].version);
    cr_assert_not_null(p);
    p->index = strdup("https://download.pytorch.org/whl/cu130");
    char url[256];
    snprintf(url, sizeof url, "https://files.example/%s", pk[i].file);
    /* two wheels per package, added in opposite orders */
    char other[256];
    snprintf(other, sizeof other, "%s", pk[i].file);
    char *x = strstr(other, "x86_64");
    if (x)
      memcpy(x, "aarch6", 6);
    else
      snprintf(other, sizeof other, "%s-%s-py2-none-any.whl", pk[i].name, pk[i].version);
    char url2[300];
    snprintf(url2, sizeof url2, "https://files.example/%s", other);
    if (!reversed) {
      cr_assert_not_null(ts_pylock_add_wheel(p, pk[i].file, url, NULL, 1000 + (long long)i,
                                             "2025-01-01T00:00:00Z", pk[i].hash));
      cr_assert_not_null(ts_pylock_add_wheel(p, other, url2, NULL, -1, NULL, pk[i].hash));
    } else {
      cr_assert_not_null(ts_pylock_add_wheel(p, other, url2, NULL, -1, NULL, pk[i].hash));
      cr_assert_not_null(ts_pylock_add_wheel(p, pk[i].file, url, NULL, 1000 + (long long)i,
                                             "2025-01-01T00:00:00Z", pk[i].hash));
    }
    cr_assert_eq(ts_pylock_add_dependency(p, "Typing_Extensions"), TS_OK);
  }
  free(l->created_by);
  l->created_by = strdup("torchsolve");
  l->requires_python = strdup(">=3.12");
  const char *facts[][2] = {{"cuda_driver", "580.159.4"}, {"cuda", "13.0"},
                            {"glibc", "2.36"}, {"gpu", "sm_90"}};
  for (size_t k = 0; k < 4; k++) {
    size_t i = reversed ? 3 - k : k;
    cr_assert_eq(ts_pylock_set_host_fact(l, facts[i][0], facts[i][1]), TS_OK);
  }
  const char *rules[] = {"torch-cuda-driver", "hipblaslt-gfx1100", "torch-cuda-driver"};
  for (size_t k = 0; k < 3; k++)
    cr_assert_eq(ts_pylock_add_rule_id(l, rules[reversed ? 2 - k : k]), TS_OK);
  return l;
}

/* The same content added in a different order gives the same bytes, and
 * writing twice gives the same bytes. */
Test(pylock, deterministic_bytes) {
  struct ts_pylock *a = build(false), *b = build(true);
  char *wa = write_lock(a), *wa2 = write_lock(a), *wb = write_lock(b);
  cr_assert_str_eq(wa, wa2);
  cr_assert_str_eq(wa, wb, "order leaked into the output:\n%s\n--\n%s", wa, wb);
  /* packages sorted by name, then PEP 440 version (2.9.1 < 2.10.0) */
  const char *f = strstr(wa, "name = \"filelock\"");
  const char *n = strstr(wa, "name = \"numpy\"");
  const char *t1 = strstr(wa, "version = \"2.9.1+cu130\"");
  const char *t2 = strstr(wa, "version = \"2.10.0\"");
  cr_assert(f && n && t1 && t2 && f < n && n < t1 && t1 < t2, "%s", wa);
  cr_assert(strstr(wa, "[tool.torchsolve]\nrules = [\"hipblaslt-gfx1100\", "
                       "\"torch-cuda-driver\"]\n\n[tool.torchsolve.host]\n"
                       "cuda = \"13.0\"\ncuda_driver = \"580.159.4\"\n"),
            "%s", wa);
  cr_assert(strstr(wa, "dependencies = [\n    { name = \"typing-extensions\" },\n]\n"));
  /* the lock reads back, facts included */
  struct ts_pylock *back = parse_ok(wa);
  cr_assert_str_eq(ts_pylock_host_fact(back, "cuda_driver"), "580.159.4");
  cr_assert_eq(back->nrule_ids, 2);
  char *wback = write_lock(back);
  cr_assert_str_eq(wa, wback);
  /* and survives a trip through a file */
  char path[] = "/tmp/ts-lock-test-XXXXXX";
  cr_assert_not_null(mkdtemp(path));
  char file[600];
  snprintf(file, sizeof file, "%s/pylock.toml", path);
  cr_assert_eq(ts_pylock_write_file(a, file, NULL), TS_OK);
  struct ts_buf disk;
  ts_buf_init(&disk, 0);
  cr_assert_eq(ts_fs_read_file(file, &disk, NULL), TS_OK);
  cr_assert_str_eq(disk.data, wa);
  ts_buf_clear(&disk);
  cr_assert_eq(ts_fs_remove_tree(path, NULL), TS_OK);
  ts_pylock_sort(b);
  cr_assert_str_eq(b->packages[0].name, "filelock");
  cr_assert_str_eq(b->packages[3].version, "2.10.0");
  free(wa);
  free(wa2);
  free(wb);
  free(wback);
  ts_pylock_free(a);
  ts_pylock_free(b);
  ts_pylock_free(back);
}

Test(pylock, writer_refuses_bad_upload_time) {
  struct ts_pylock *l = ts_pylock_new();
  struct ts_pylock_package *p = ts_pylock_add_package(l, "a", "1.0");
  cr_assert_not_null(ts_pylock_add_wheel(
      p, "a-1.0-py3-none-any.whl", "https://h/a-1.0-py3-none-any.whl", NULL, 1,
      "last tuesday",
      "0000000000000000000000000000000000000000000000000000000000000000"));
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_write(l, &b, &err), TS_E_INVALID);
  cr_assert(strstr(err.detail, "last tuesday"), "%s", err.detail);
  ts_buf_clear(&b);
  /* a wrong wheel name is caught by validate */
  free(p->wheels[0].upload_time);
  p->wheels[0].upload_time = NULL;
  free(p->wheels[0].name);
  p->wheels[0].name = strdup("b-1.0-py3-none-any.whl");
  cr_assert_eq(ts_pylock_validate(l, &err), TS_E_PARSE);
  ts_pylock_free(l);
}

Test(pylock, hostile_files) {
  /* duplicate package keys, deep nesting in [tool], a huge tool table */
  parse_bad(HEAD "[[packages]]\nname = 'a'\nname = 'a'\n", TS_E_PARSE,
            "duplicate key");
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_buf_append_str(&b, HEAD "packages = []\n[tool.x]\nv = "), TS_OK);
  for (int i = 0; i < 200; i++)
    cr_assert_eq(ts_buf_append_str(&b, "["), TS_OK);
  for (int i = 0; i < 200; i++)
    cr_assert_eq(ts_buf_append_str(&b, "]"), TS_OK);
  cr_assert_eq(ts_buf_append_str(&b, "\n"), TS_OK);
  parse_bad(b.data, TS_E_TOO_BIG, "deeper");
  ts_buf_reset(&b);
  cr_assert_eq(ts_buf_append_str(&b, HEAD), TS_OK);
  for (int i = 0; i < 3000; i++)
    cr_assert_eq(ts_buf_printf(&b,
                               "[[packages]]\nname = 'p%d'\nversion = '1.%d'\n"
                               "[[packages.wheels]]\nurl = 'https://h/p%d-1.%d-py3-none-any.whl'\n"
                               "hashes = {sha256 = '%064d'}\n",
                               i, i, i, i, i),
                 TS_OK);
  struct ts_pylock *l = parse_ok(b.data);
  cr_assert_eq(l->npackages, 3000);
  char *w1 = write_lock(l);
  struct ts_pylock *back = parse_ok(w1);
  char *w2 = write_lock(back);
  cr_assert_str_eq(w1, w2);
  free(w1);
  free(w2);
  ts_pylock_free(l);
  ts_pylock_free(back);
  ts_buf_clear(&b);
}

/* Found by fuzz_lock_pylock: two entries equal on name, version, marker and
 * index must still come out in one order, whatever order they came in. */
Test(pylock, ties_do_not_leak_input_order) {
  const char *h1 = "1111111111111111111111111111111111111111111111111111111111111111";
  const char *h2 = "2222222222222222222222222222222222222222222222222222222222222222";
  char *out[2];
  for (int order = 0; order < 2; order++) {
    struct ts_pylock *l = ts_pylock_new();
    for (int k = 0; k < 2; k++) {
      int i = order ? 1 - k : k;
      struct ts_pylock_package *p = ts_pylock_add_package(l, "a", "1.0");
      /* package 0: wheels x and z (z first); package 1: wheel y */
      if (i == 0) {
        cr_assert_not_null(ts_pylock_add_wheel(p, "a-1.0-py3-none-z.whl", "https://h/z", NULL, -1, NULL, h1));
        cr_assert_not_null(ts_pylock_add_wheel(p, "a-1.0-py3-none-x.whl", "https://h/x", NULL, -1, NULL, h1));
      } else {
        cr_assert_not_null(ts_pylock_add_wheel(p, "a-1.0-py3-none-y.whl", "https://h/y", NULL, -1, NULL, h2));
      }
    }
    out[order] = write_lock(l);
    struct ts_pylock *back = parse_ok(out[order]);
    char *again = write_lock(back);
    cr_assert_str_eq(out[order], again);
    free(again);
    ts_pylock_free(back);
    ts_pylock_free(l);
  }
  cr_assert_str_eq(out[0], out[1]);
  free(out[0]);
  free(out[1]);
}

/* A local file's `path` relative to the lock file's directory (PEP 751). */
Test(pylock, relative_path_from_the_lock_directory) {
  static const char *const cases[][3] = {
      {"/a/b", "/a/b/x.whl", "./x.whl"},
      {"/a/b", "/a/b/w/x.whl", "./w/x.whl"},
      {"/a/b", "/a/c/x.whl", "../c/x.whl"},
      {"/a/b/c", "/a/x.whl", "../../x.whl"},
      {"/a/bc", "/a/b/x.whl", "../b/x.whl"},
      {"/a/b", "/a/bc/x.whl", "../bc/x.whl"},
      {"/", "/x.whl", "./x.whl"},
      {"/a", "/x.whl", "../x.whl"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *r = ts_pylock_relative_path(cases[i][0], cases[i][1]);
    cr_assert_not_null(r, "%s -> %s", cases[i][0], cases[i][1]);
    cr_assert_str_eq(r, cases[i][2], "%s -> %s", cases[i][0], cases[i][1]);
    free(r);
  }
  cr_assert_null(ts_pylock_relative_path("a/b", "/x.whl"));
  cr_assert_null(ts_pylock_relative_path("/a", "x.whl"));
  cr_assert_null(ts_pylock_relative_path(NULL, "/x.whl"));
}

/* PEP 825's [packages.variants-json]: read, kept and written back. */
Test(pylock, variants_json_roundtrip) {
  static const char h[] = "0000000000000000000000000000000000000000000000000000000000000001";
  char text[1024];
  cr_assert(snprintf(text, sizeof text,
                     "lock-version = '1.0'\ncreated-by = 't'\n[[packages]]\nname = 'torch'\n"
                     "version = '2.10.0'\n[[packages.wheels]]\n"
                     "url = 'https://x/torch-2.10.0-py3-none-any-cuda12.8.whl'\n"
                     "hashes = {sha256 = '%s'}\n[packages.variants-json]\n"
                     "url = 'https://x/torch-2.10.0-variants.json'\nhashes = {sha256 = '%s'}\n",
                     h, h) < (int)sizeof text);
  struct ts_pylock *l = parse_ok(text);
  const struct ts_pylock_file *vj = l->packages[0].variants_json;
  cr_assert_not_null(vj);
  cr_assert_str_eq(vj->url, "https://x/torch-2.10.0-variants.json");
  cr_assert_str_eq(ts_pylock_file_sha256(vj), h);
  char *w = write_lock(l);
  cr_assert(strstr(w, "[packages.variants-json]\n"), "%s", w);
  struct ts_pylock *back = parse_ok(w);
  cr_assert_str_eq(back->packages[0].variants_json->url, vj->url);
  free(w);
  ts_pylock_free(l);
  ts_pylock_free(back);
  parse_bad("lock-version = '1.0'\ncreated-by = 't'\n[[packages]]\nname = 'torch'\n"
            "[[packages.wheels]]\nurl = 'https://x/torch-2.10.0-py3-none-any.whl'\n"
            "hashes = {sha256 = '0000000000000000000000000000000000000000000000000000000000000001'}\n"
            "[packages.variants-json]\nhashes = {sha256 = "
            "'0000000000000000000000000000000000000000000000000000000000000001'}\n",
            TS_E_PARSE, "variants-json");
}
