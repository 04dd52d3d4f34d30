/* ts_wheel through its library API: install/upgrade/uninstall into a venv
 * made by ts_venv_create, the zip-bomb caps, the cache callbacks, and
 * transaction recovery both ways (a stage without a journal is rolled back,
 * a journal is rolled forward) with hand-made interrupted transactions, and
 * a wheel staged directly installing what the cache would.
 * Fixture wheels come from tests/support/make_wheels.py (python3). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "wheel/scripts.h"
#include "wheel/txn.h"
#include "wheel/venv.h"
#include "wheel/wheel.h"

#ifndef TS_SOURCE_DIR_FOR_TESTS
#define TS_SOURCE_DIR_FOR_TESTS TS_FIXTURES_DIR "/.."
#endif

static char root[256];
static char fx[300];
static struct ts_venv_base base;
static struct ts_venv_target tgt;

static bool exists(const char *dir, const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, rel);
  struct stat st;
  return lstat(p, &st) == 0;
}

static void setup(void) {
  snprintf(root, sizeof root, "/tmp/ts-wheel-unit-XXXXXX");
  cr_assert(mkdtemp(root));
  snprintf(fx, sizeof fx, "%s/fx", root);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "python3 %s/tests/support/make_wheels.py %s",
           TS_SOURCE_DIR_FOR_TESTS, fx);
  if (system(cmd) != 0)
    cr_skip_test("python3 cannot build the fixture wheels");
  struct ts_error err = {0};
  if (ts_venv_probe_base("python3", &base, &err) != TS_OK)
    cr_skip_test("no python3: %s", err.detail);
  char venv[300];
  snprintf(venv, sizeof venv, "%s/venv", root);
  cr_assert_eq(ts_venv_create(venv, &base, NULL, &err), TS_OK, "%s", err.detail);
  ts_venv_target_for_layout(venv, base.major, base.minor, &tgt);
}

static void teardown(void) {
  ts_venv_target_clear(&tgt);
  ts_venv_base_clear(&base);
  ts_fs_remove_tree(root, NULL);
}

static int unpacked_calls, from_cache_calls, repaired_calls;
static void on_unpacked(void *ctx, const char *w, bool cached) {
  (void)ctx;
  (void)w;
  unpacked_calls++;
  from_cache_calls += cached;
}
static void on_repaired(void *ctx, const char *what) {
  (void)ctx;
  (void)what;
  repaired_calls++;
}

static struct ts_wheel_options opts(void) {
  static char cache[320];
  snprintf(cache, sizeof cache, "%s/cache", root);
  struct ts_wheel_options o = {.paths = &tgt.paths, .cache_dir = cache, .threads = 2};
  o.cb.unpacked = on_unpacked;
  o.cb.repaired = on_repaired;
  return o;
}

static struct ts_wheel_request req(const char *name) {
  static char paths[4][400];
  static int k;
  char *p = paths[k++ % 4];
  snprintf(p, 400, "%s/%s", fx, name);
  return (struct ts_wheel_request){.path = p, .requested = true};
}

TestSuite(wheel_install, .init = setup, .fini = teardown);

Test(wheel_install, install_upgrade_uninstall) {
  struct ts_wheel_options o = opts();
  struct ts_error err = {0};
  struct ts_wheel_result res;
  struct ts_wheel_request r = req("feat-1.0-py3-none-any.whl");
  unpacked_calls = from_cache_calls = 0;
  cr_assert_eq(ts_wheel_install(&o, &r, 1, &res, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(res.count, 1);
  cr_assert_str_eq(res.changes[0].name, "feat");
  cr_assert_null(res.changes[0].old_version);
  cr_assert_str_eq(res.changes[0].new_version, "1.0");
  ts_wheel_result_clear(&res);
  const char *site = tgt.paths.purelib;
  cr_assert(exists(site, "feat/old_only.py"));
  cr_assert(exists(site, "feat-1.0.dist-info/INSTALLER"));
  cr_assert(exists(site, "feat-1.0.dist-info/REQUESTED"));
  cr_assert(!exists(site, "feat-1.0.dist-info/direct_url.json"));
  cr_assert(exists(tgt.paths.scripts, "feat"));
  char *di = NULL;
  cr_assert_eq(ts_wheel_find_installed(site, "FEAT", &di, &err), TS_OK);
  free(di);

  struct ts_wheel_request r2 = req("feat-2.0-py3-none-any.whl");
  cr_assert_eq(ts_wheel_install(&o, &r2, 1, &res, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(res.changes[0].old_version, "1.0");
  ts_wheel_result_clear(&res);
  cr_assert(!exists(site, "feat/old_only.py"));
  cr_assert(exists(site, "feat/new_only.py"));
  cr_assert(!exists(site, ".torchsolve-txn"));

  /* reinstalling 1.0 comes from the cache */
  cr_assert_eq(ts_wheel_install(&o, &r, 1, NULL, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(unpacked_calls, 3);
  cr_assert_eq(from_cache_calls, 1);

  const char *names[] = {"feat"};
  cr_assert_eq(ts_wheel_uninstall(&o, names, 1, &res, &err), TS_OK, "%s", err.detail);
  ts_wheel_result_clear(&res);
  cr_assert(!exists(site, "feat"));
  cr_assert(!exists(tgt.paths.scripts, "feat"));
  cr_assert_eq(ts_wheel_uninstall(&o, names, 1, NULL, &err), TS_E_NOT_FOUND);
}

static int dir_flags(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY);
  int flags = -1;
  if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0)
    flags = -1;
  if (fd >= 0)
    close(fd);
  return flags;
}

/* The unpacked-wheel root and the stage are TOPDIRs (ts_fs_spread_subdirs), on the
 * filesystems that have the flag. */
Test(wheel_install, cache_and_stage_roots_spread_their_trees) {
  char probe[320];
  snprintf(probe, sizeof probe, "%s/probe", root);
  cr_assert_eq(mkdir(probe, 0755), 0);
  ts_fs_spread_subdirs(probe);
  int pf = dir_flags(probe);
  if (pf < 0 || !(pf & FS_TOPDIR_FL))
    cr_skip_test("this filesystem has no TOPDIR flag");
  struct ts_wheel_options o = opts();
  struct ts_error err = {0};
  struct ts_wheel_request r = req("feat-1.0-py3-none-any.whl");
  cr_assert_eq(ts_wheel_install(&o, &r, 1, NULL, &err), TS_OK, "%s", err.detail);
  char wroot[400];
  snprintf(wroot, sizeof wroot, "%s/wheels-v1", o.cache_dir);
  int f = dir_flags(wroot);
  cr_assert(f >= 0 && (f & FS_TOPDIR_FL), "flags of %s: %#x", wroot, (unsigned)f);

  /* the transaction's directory too, whose stage's trees are renamed into
   * place; the stage has a new name each time (the allocator's tie-break) */
  char *stages[2];
  for (int k = 0; k < 2; k++) {
    struct ts_txn t;
    cr_assert_eq(ts_txn_open(&t, tgt.paths.purelib, NULL, TS_TXN_LOCK_WAIT, NULL, NULL, &err),
                 TS_OK, "%s", err.detail);
    cr_assert_eq(ts_txn_begin(&t, &err), TS_OK, "%s", err.detail);
    f = dir_flags(t.dir);
    cr_assert(f >= 0 && (f & FS_TOPDIR_FL), "flags of %s: %#x", t.dir, (unsigned)f);
    stages[k] = strdup(strrchr(t.new_dir, '/') + 1);
    cr_assert_eq(strncmp(stages[k], "new-", 4), 0, "%s", stages[k]);
    cr_assert_eq(ts_txn_commit(&t, &err), TS_OK, "%s", err.detail);
    ts_txn_end(&t);
    cr_assert(!exists(tgt.paths.purelib, ".torchsolve-txn"));
  }
  cr_assert_str_neq(stages[0], stages[1]);
  free(stages[0]);
  free(stages[1]);
}

Test(wheel_install, caps_refuse_before_touching_the_env) {
  struct ts_wheel_options o = opts();
  o.limits.max_total = 1000; /* feat unpacks to more than this */
  struct ts_error err = {0};
  struct ts_wheel_request r = req("feat-1.0-py3-none-any.whl");
  cr_assert_eq(ts_wheel_install(&o, &r, 1, NULL, &err), TS_E_TOO_BIG);
  cr_assert(strstr(err.detail, "zip bomb"), "%s", err.detail);
  cr_assert(!exists(tgt.paths.purelib, ".torchsolve.lock"));
  cr_assert(!exists(tgt.paths.purelib, "feat"));
  /* the default ratio cap refuses the 16 MiB of zeros */
  o = opts();
  struct ts_wheel_request rb = req("hostile_bomb_ratio-1.0-py3-none-any.whl");
  cr_assert_eq(ts_wheel_install(&o, &rb, 1, NULL, &err), TS_E_TOO_BIG, "%s", err.detail);
  /* with a raised ratio cap the same wheel is accepted */
  o.limits.max_ratio = 100000;
  cr_assert_eq(ts_wheel_install(&o, &rb, 1, NULL, &err), TS_OK, "%s", err.detail);
}

/* A stage without a journal (killed while staging) is deleted; a journal
 * (killed after the commit point) is carried out. */
Test(wheel_install, recovery_both_ways) {
  struct ts_wheel_options o = opts();
  struct ts_error err = {0};
  const char *site = tgt.paths.purelib;
  char txn[512], p[1200];
  snprintf(txn, sizeof txn, "%s/.torchsolve-txn", site);
  snprintf(p, sizeof p, "%s/new/0/half", txn);
  cr_assert_eq(ts_fs_mkdirs(p, &err), TS_OK);
  bool repaired = false;
  repaired_calls = 0;
  cr_assert_eq(ts_wheel_repair(&o, &repaired, &err), TS_OK, "%s", err.detail);
  cr_assert(repaired);
  cr_assert_eq(repaired_calls, 1);
  cr_assert(!exists(site, ".torchsolve-txn"));
  cr_assert(!exists(site, "half"));

  /* journal: back up an old file, move a staged dir and a staged file in */
  char old_file[600], staged_dir[600], staged_file[600], journal[600];
  snprintf(old_file, sizeof old_file, "%s/oldpkg/gone.py", site);
  snprintf(staged_dir, sizeof staged_dir, "%s/new/0/newpkg", txn);
  snprintf(staged_file, sizeof staged_file, "%s/new/0/top.py", txn);
  snprintf(p, sizeof p, "%s/oldpkg", site);
  cr_assert_eq(ts_fs_mkdirs(p, &err), TS_OK);
  cr_assert_eq(ts_fs_write_atomic(old_file, "x", 1, &err), TS_OK);
  cr_assert_eq(ts_fs_mkdirs(staged_dir, &err), TS_OK);
  snprintf(p, sizeof p, "%s/mod.py", staged_dir);
  cr_assert_eq(ts_fs_write_atomic(p, "y", 1, &err), TS_OK);
  cr_assert_eq(ts_fs_write_atomic(staged_file, "z", 1, &err), TS_OK);
  snprintf(p, sizeof p, "%s/old", txn);
  cr_assert_eq(ts_fs_mkdirs(p, &err), TS_OK);
  char text[4096];
  snprintf(text, sizeof text,
           "torchsolve-txn 1\n"
           "B\t%s\t%s/old/0\n"
           "M\t%s\t%s/newpkg\n"
           "M\t%s\t%s/top.py\n"
           "P\t%s/oldpkg\n",
           old_file, txn, staged_dir, site, staged_file, site, site);
  snprintf(journal, sizeof journal, "%s/journal", txn);
  cr_assert_eq(ts_fs_write_atomic(journal, text, strlen(text), &err), TS_OK);
  /* as if the first op had already been done before the kill */
  snprintf(p, sizeof p, "%s/old/0", txn);
  cr_assert_eq(rename(old_file, p), 0);
  cr_assert_eq(ts_wheel_repair(&o, &repaired, &err), TS_OK, "%s", err.detail);
  cr_assert(repaired);
  cr_assert(exists(site, "newpkg/mod.py"));
  cr_assert(exists(site, "top.py"));
  cr_assert(!exists(site, "oldpkg"));
  cr_assert(!exists(site, ".torchsolve-txn"));
  /* nothing left to do the second time */
  cr_assert_eq(ts_wheel_repair(&o, &repaired, &err), TS_OK);
  cr_assert(!repaired);
}

Test(wheel_install, two_versions_of_one_dist_refused) {
  struct ts_wheel_options o = opts();
  struct ts_error err = {0};
  struct ts_wheel_request r[2] = {req("feat-1.0-py3-none-any.whl"), req("feat-2.0-py3-none-any.whl")};
  cr_assert_eq(ts_wheel_install(&o, r, 2, NULL, &err), TS_E_INVALID);
  cr_assert(!exists(tgt.paths.purelib, "feat"));
}

/* sync installs and removes in one transaction (o->remove): both happen,
 * or, when a removal cannot (not installed), neither. */
Test(wheel_install, install_and_remove_in_one_transaction) {
  struct ts_wheel_options o = opts();
  struct ts_error err = {0};
  struct ts_wheel_request odd = req("Odd.Name-1.0-py3-none-any.whl");
  cr_assert_eq(ts_wheel_install(&o, &odd, 1, NULL, &err), TS_OK, "%s", err.detail);
  const char *site = tgt.paths.purelib;

  /* A name that is not installed: nothing at all happens. */
  const char *bad[] = {"odd-name", "not-installed"};
  o.remove = bad;
  o.nremove = 2;
  struct ts_wheel_request feat = req("feat-1.0-py3-none-any.whl");
  cr_assert_eq(ts_wheel_install(&o, &feat, 1, NULL, &err), TS_E_NOT_FOUND);
  cr_assert_not_null(strstr(err.detail, "not-installed"), "%s", err.detail);
  cr_assert(!exists(site, "feat-1.0.dist-info"), "feat installed though the removal failed");
  cr_assert(exists(site, "Odd.Name-1.0.dist-info") || exists(site, "odd_name-1.0.dist-info"),
            "Odd.Name removed though the transaction failed");
  cr_assert(!exists(site, ".torchsolve-txn"));

  /* Both: feat in, Odd.Name out, one result listing each. */
  const char *rm[] = {"odd-name"};
  o.remove = rm;
  o.nremove = 1;
  struct ts_wheel_result res;
  cr_assert_eq(ts_wheel_install(&o, &feat, 1, &res, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(res.count, 2);
  cr_assert_str_eq(res.changes[0].name, "feat");
  cr_assert_str_eq(res.changes[1].name, "odd-name");
  cr_assert_str_eq(res.changes[1].old_version, "1.0");
  cr_assert_null(res.changes[1].new_version);
  ts_wheel_result_clear(&res);
  cr_assert(exists(site, "feat-1.0.dist-info"));
  cr_assert(!exists(site, "Odd.Name-1.0.dist-info") && !exists(site, "odd_name-1.0.dist-info"));

  /* Removal only (a sync whose lock dropped a package). */
  const char *rm2[] = {"feat"};
  o.remove = rm2;
  cr_assert_eq(ts_wheel_install(&o, NULL, 0, NULL, &err), TS_OK, "%s", err.detail);
  cr_assert(!exists(site, "feat"));
  cr_assert(!exists(tgt.paths.scripts, "feat"));
}

static void expect_names(const char *ep, int major, int minor, const char *want) {
  char *names[3];
  size_t n = ts_wheel_launcher_names(ep, major, minor, names);
  char got[256] = "";
  for (size_t i = 0; i < n; i++) {
    strncat(got, i ? " " : "", sizeof got - strlen(got) - 1);
    strncat(got, names[i], sizeof got - strlen(got) - 1);
    free(names[i]);
  }
  cr_assert_str_eq(got, want, "%s for %d.%d", ep, major, minor);
}

Test(wheel_install, versioned_launchers_follow_the_target) {
  /* pip's get_console_script_specs: the builder's easy_install-2.6 and
   * pip3.12 give way to the target's */
  expect_names("easy_install", 3, 11, "easy_install easy_install-3.11");
  expect_names("easy_install-2.6", 3, 11, "");
  expect_names("pip", 3, 11, "pip pip3 pip3.11");
  expect_names("pip3.12", 3, 11, "");
  expect_names("pip3", 3, 11, "");
  expect_names("pipx", 3, 11, "pipx");
  expect_names("easy_install-2.6", 0, 0, "easy_install-2.6");
  expect_names("t1", 3, 11, "t1");
}

static char *read_text(const char *dir, const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, rel);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_fs_read_file(p, &b, NULL), TS_OK, "%s", p);
  return ts_buf_take(&b, NULL);
}

/* A wheel staged directly (no tree in the cache) installs exactly what the
 * cached path installs: .data schemes, the #!python rewrite, symlinks,
 * launchers, one RECORD byte for byte. */
Test(wheel_install, staged_directly_installs_what_the_cache_would) {
  struct ts_wheel_options o = opts();
  struct ts_error err = {0};
  struct ts_wheel_request r = req("feat-1.0-py3-none-any.whl");
  r.stage_directly = true;
  unpacked_calls = from_cache_calls = 0;
  cr_assert_eq(ts_wheel_install(&o, &r, 1, NULL, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(unpacked_calls, 1);
  cr_assert_eq(from_cache_calls, 0);
  char wheels[400];
  snprintf(wheels, sizeof wheels, "%s/wheels-v1", o.cache_dir);
  DIR *d = opendir(wheels);
  for (struct dirent *de; d && (de = readdir(d));)
    cr_assert(strlen(de->d_name) != 64, "a tree was kept: %s", de->d_name);
  if (d)
    closedir(d);
  const char *site = tgt.paths.purelib;
  cr_assert(exists(site, "feat/old_only.py"));
  cr_assert(!exists(site, ".torchsolve-txn"));
  char *direct = read_text(site, "feat-1.0.dist-info/RECORD");
  char *script = read_text(tgt.paths.scripts, "feat-script");

  char link[64] = {0};
  snprintf(wheels, sizeof wheels, "%s/feat/link.py", site);
  cr_assert(readlink(wheels, link, sizeof link - 1) > 0);
  cr_assert_str_eq(link, "sub/mod.py");

  /* the same wheel again, through the cache */
  const char *names[] = {"feat"};
  cr_assert_eq(ts_wheel_uninstall(&o, names, 1, NULL, &err), TS_OK, "%s", err.detail);
  r.stage_directly = false;
  cr_assert_eq(ts_wheel_install(&o, &r, 1, NULL, &err), TS_OK, "%s", err.detail);
  char *cached = read_text(site, "feat-1.0.dist-info/RECORD");
  cr_assert_str_eq(direct, cached);
  char *script2 = read_text(tgt.paths.scripts, "feat-script");
  cr_assert(strncmp(script, "#!", 2) == 0 && strstr(script, "/venv/bin/python"));
  cr_assert_str_eq(script, script2);
  free(direct);
  free(cached);
  free(script);
  free(script2);
}
