/* Unit tests for lock/syncplan.h: which packages of a lock apply to a
 * target, which wheel is chosen, and the diff against what is installed. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lock/syncplan.h"
#include "pep/tags.h"

static const struct ts_marker_env env312 = {
    .implementation_name = "cpython", .implementation_version = "3.12.0",
    .os_name = "posix", .platform_machine = "x86_64",
    .platform_python_implementation = "CPython", .platform_system = "Linux",
    .python_full_version = "3.12.0", .python_version = "3.12",
    .sys_platform = "linux"};

static struct ts_tagset *tags312(void) {
  const char *t[] = {"cp312-cp312-manylinux_2_28_x86_64",
                     "cp312-cp312-manylinux_2_17_x86_64", "cp312-abi3-manylinux_2_17_x86_64",
                     "py3-none-manylinux_2_17_x86_64", "cp312-none-any", "py3-none-any"};
  struct ts_tagset *s = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_tagset_from_strings(t, 6, &s, &err), TS_OK, "%s", err.detail);
  return s;
}

static struct ts_pylock *parse(const char *text) {
  struct ts_pylock *l = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(text, strlen(text), "t.toml", &l, &err), TS_OK, "%s",
               err.detail);
  return l;
}

#define H64(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
               c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c

static const char *LOCK =
    "lock-version = \"1.0\"\ncreated-by = \"t\"\nrequires-python = \">=3.10\"\n"
    "[[packages]]\nname = \"alpha\"\nversion = \"1.0\"\n"
    "wheels = [{url = \"https://x/alpha-1.0-py3-none-any.whl\", hashes = {sha256 = \"" H64("a") "\"}},\n"
    "  {url = \"https://x/alpha-1.0-cp312-cp312-manylinux_2_17_x86_64.whl\", hashes = {sha256 = \"" H64("b") "\"}},\n"
    "  {url = \"https://x/alpha-1.0-cp311-cp311-manylinux_2_17_x86_64.whl\", hashes = {sha256 = \"" H64("c") "\"}}]\n"
    "[[packages]]\nname = \"torch\"\nversion = \"2.9.1+cu126\"\n"
    "wheels = [{url = \"https://x/torch-2.9.1%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl\", hashes = {sha256 = \"" H64("d") "\"}}]\n"
    "[[packages]]\nname = \"winonly\"\nversion = \"1.0\"\nmarker = \"sys_platform == 'win32'\"\n"
    "wheels = [{url = \"https://x/winonly-1.0-py3-none-any.whl\", hashes = {sha256 = \"" H64("e") "\"}}]\n"
    "[[packages]]\nname = \"beta\"\nversion = \"2.0\"\n"
    "wheels = [{url = \"https://x/beta-2.0-py3-none-any.whl\", hashes = {sha256 = \"" H64("f") "\"}}]\n";

static const struct ts_sync_item *find(const struct ts_sync_plan *p, const char *name) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->items[i].name, name) == 0)
      return &p->items[i];
  return NULL;
}

Test(syncplan, installs_changes_keeps_removes) {
  struct ts_pylock *l = parse(LOCK);
  struct ts_tagset *tags = tags312();
  struct ts_sync_installed inst[] = {{"Beta", "1.0"}, {"torch", "2.9.1+cu126"},
                                     {"pip", "24.0"}, {"Win_Only", "1.0"}};
  struct ts_sync_plan p;
  struct ts_error err = {0};
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, inst, 4, &p, &err), TS_OK, "%s",
               err.detail);
  cr_assert_eq(p.n, 5);
  cr_assert_eq(p.ninstall, 1);
  cr_assert_eq(p.nchange, 1);
  cr_assert_eq(p.nkeep, 1);
  cr_assert_eq(p.nremove, 2);
  const struct ts_sync_item *a = find(&p, "alpha");
  cr_assert(a && a->action == TS_SYNC_INSTALL);
  /* the platform wheel beats the generic one; cp311 does not fit */
  cr_assert_str_eq(a->sha256, H64("b"));
  cr_assert_eq(find(&p, "beta")->action, TS_SYNC_CHANGE);
  cr_assert_str_eq(find(&p, "beta")->old_version, "1.0");
  cr_assert_eq(find(&p, "torch")->action, TS_SYNC_KEEP);
  cr_assert_eq(find(&p, "pip")->action, TS_SYNC_REMOVE);
  /* winonly's marker is false: the installed copy is extraneous */
  cr_assert_eq(find(&p, "win-only")->action, TS_SYNC_REMOVE);
  /* sorted by name */
  for (size_t i = 1; i < p.n; i++)
    cr_assert(strcmp(p.items[i - 1].name, p.items[i].name) < 0);
  ts_sync_plan_clear(&p);
  ts_tagset_free(tags);
  ts_pylock_free(l);
}

Test(syncplan, decodes_url_file_names) {
  struct ts_pylock *l = parse(LOCK);
  char *n = ts_pylock_file_decoded_name(&l->packages[1].wheels[0]);
  cr_assert_str_eq(n, "torch-2.9.1+cu126-cp312-cp312-manylinux_2_28_x86_64.whl");
  free(n);
  ts_pylock_free(l);
}

Test(syncplan, refuses_what_does_not_apply) {
  struct ts_tagset *tags = tags312();
  struct ts_sync_plan p;
  struct ts_error err = {0};
  /* requires-python */
  struct ts_pylock *l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n"
                              "requires-python = \"==3.11.*\"\npackages = []\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "3.11"), "%s", err.detail);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  /* environments */
  l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n"
            "environments = [\"sys_platform == 'darwin'\"]\npackages = []\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_PYTHON);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  /* no wheel for the target */
  l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"a\"\n"
            "version = \"1\"\nwheels = [{url = \"https://x/a-1-cp39-cp39-win_amd64.whl\", "
            "hashes = {sha256 = \"" H64("a") "\"}}]\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "fits the target"), "%s", err.detail);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  /* sdist only: a source to build, installed again even at the same version */
  l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"a\"\n"
            "version = \"1\"\nsdist = {url = \"https://x/a-1.tar.gz\", "
            "hashes = {sha256 = \"" H64("a") "\"}}\n");
  struct ts_sync_installed have_a = {"A", "1"};
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, &have_a, 1, &p, &err), TS_OK, "%s",
               err.detail);
  cr_assert_eq(p.n, 1);
  cr_expect(p.items[0].source);
  cr_expect_null(p.items[0].wheel);
  cr_expect_eq(p.items[0].action, TS_SYNC_CHANGE);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  /* a package's own requires-python */
  l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"a\"\n"
            "version = \"1\"\nrequires-python = \">=3.13\"\nwheels = [{url = "
            "\"https://x/a-1-py3-none-any.whl\", hashes = {sha256 = \"" H64("a") "\"}}]\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, ">=3.13"), "%s", err.detail);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  /* a wheel hashed with sha512 only: sync verifies sha256, and that is no
   * hash mismatch (exit 4) */
  l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"a\"\n"
            "version = \"1\"\nwheels = [{url = \"https://x/a-1-py3-none-any.whl\", "
            "hashes = {sha512 = \"" H64("ab") "\"}}]\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_UNSUPPORTED);
  cr_assert(strstr(err.detail, "no sha256"), "%s", err.detail);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  ts_tagset_free(tags);
}

/* Faults of the lock file's content are TS_E_PARSE (exit 1, "the input is
 * malformed"), not a usage error; a marker's message keeps its own detail. */
Test(syncplan, malformed_content_is_a_parse_error) {
  struct ts_tagset *tags = tags312();
  struct ts_sync_plan p;
  struct ts_error err = {0};
  struct ts_pylock *l = parse(
      "lock-version = \"1.0\"\ncreated-by = \"t\"\n"
      "[[packages]]\nname = \"a\"\nversion = \"1\"\nwheels = [{url = "
      "\"https://x/a-1-py3-none-any.whl\", hashes = {sha256 = \"" H64("a") "\"}}]\n"
      "[[packages]]\nname = \"a\"\nversion = \"2\"\nwheels = [{url = "
      "\"https://x/a-2-py3-none-any.whl\", hashes = {sha256 = \"" H64("b") "\"}}]\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "two entries of 'a'"), "%s", err.detail);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  l = parse("lock-version = \"1.0\"\ncreated-by = \"t\"\n[[packages]]\nname = \"a\"\n"
            "version = \"1\"\nmarker = 'extra == \"x\"'\nwheels = [{url = "
            "\"https://x/a-1-py3-none-any.whl\", hashes = {sha256 = \"" H64("a") "\"}}]\n");
  cr_assert_eq(ts_sync_plan_make(l, &env312, tags, NULL, 0, &p, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "marker 'extra == \"x\"': undefined environment name"),
            "%s", err.detail);
  ts_sync_plan_clear(&p);
  ts_pylock_free(l);
  ts_tagset_free(tags);
}
