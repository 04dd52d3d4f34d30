/*
 * plan/request.h and plan/dry_run.h: what install and download options
 * mean together (refusals, the interpreter, the installed set and the
 * environment lock), and the --dry-run line install and sync share.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/dry_run.h"
#include "plan/request.h"

static enum ts_code check(struct ts_plan_request q, char *detail, size_t cap) {
  struct ts_error err = {0};
  enum ts_code rc = ts_plan_request_check(&q, &err);
  snprintf(detail, cap, "%s", err.detail);
  return rc;
}

Test(plan_request, conflicting_options_are_usage_errors) {
  char d[TS_ERROR_DETAIL_MAX];
  cr_assert_eq(check((struct ts_plan_request){.download = true, .install_only = "--compile"},
                     d, sizeof d), TS_E_USAGE);
  cr_assert(strstr(d, "'--compile' is an install option"), "%s", d);
  cr_assert_eq(check((struct ts_plan_request){.platform = "linux_x86_64"}, d, sizeof d),
               TS_E_USAGE);
  cr_assert_str_eq(d, "--platform needs --python-version");
  cr_assert_eq(check((struct ts_plan_request){.system = true, .python = "/x"}, d, sizeof d),
               TS_E_USAGE);
  cr_assert_eq(check((struct ts_plan_request){.target_dir = "a", .prefix_dir = "b"}, d,
                     sizeof d), TS_E_USAGE);
  cr_assert_eq(check((struct ts_plan_request){.prefix_dir = "b", .python_version = "3.12"},
                     d, sizeof d), TS_E_USAGE);
  /* install's own options are fine for install */
  cr_assert_eq(check((struct ts_plan_request){.install_only = "--compile", .target_dir = "t"},
                     d, sizeof d), TS_OK);
}

Test(plan_request, settle_and_options) {
  struct ts_plan_request q = {.system = true};
  ts_plan_request_settle(&q);
  cr_assert_str_eq(q.python, "python3");
  cr_assert_str_eq(q.dest, ".");

  /* an install for --python-version is a dry run; nothing is locked */
  q = (struct ts_plan_request){.python_version = "3.12", .platform = "linux_x86_64"};
  ts_plan_request_settle(&q);
  cr_assert(q.dry_run);
  struct ts_plan_options po = {0};
  ts_plan_request_options(&q, &po);
  cr_assert(po.spec && !strcmp(po.spec->python_version, "3.12") &&
            !strcmp(po.spec->platform, "linux_x86_64"));
  cr_assert(!po.lock_env);

  /* a download reads no installed set and is no dry run */
  q = (struct ts_plan_request){.download = true, .python_version = "3.12"};
  ts_plan_request_settle(&q);
  cr_assert(!q.dry_run);
  ts_plan_request_options(&q, &po);
  cr_assert(!po.read_installed && !po.lock_env);

  /* a real install reads and locks; --target reads nothing, --prefix does */
  q = (struct ts_plan_request){.python = "/venv", .upgrade = true, .pre = true};
  ts_plan_request_settle(&q);
  ts_plan_request_options(&q, &po);
  cr_assert(po.read_installed && po.lock_env && po.upgrade && po.pre && !po.spec);
  cr_assert_str_eq(po.python, "/venv");
  q.target_dir = "t";
  ts_plan_request_options(&q, &po);
  cr_assert(!po.read_installed && !po.lock_env);
  q.target_dir = NULL;
  q.prefix_dir = "p";
  ts_plan_request_options(&q, &po);
  cr_assert(po.read_installed && !po.lock_env);
  q.prefix_dir = NULL;
  q.ignore_installed = true;
  ts_plan_request_options(&q, &po);
  cr_assert(!po.read_installed && po.lock_env);
}

Test(plan_dry_run, line_shape) {
  char *l = ts_plan_dry_run_line("upgrade", "torch", "2.10.0+cu126",
                                 "https://user:secret@example.org/whl/cu126", "2.10.0+cpu");
  cr_assert_str_eq(l, "upgrade torch 2.10.0+cu126 cu126 https://example.org/whl/cu126 "
                      "(was 2.10.0+cpu)");
  free(l);
  l = ts_plan_dry_run_line("install", "six", "1.16.0", NULL, NULL);
  cr_assert_str_eq(l, "install six 1.16.0 - -");
  free(l);
}

Test(plan_dry_run, sync_changes_are_named_by_version_order) {
  struct ts_sync_item items[] = {
      {.action = TS_SYNC_CHANGE, .name = "a", .old_version = "1.0", .new_version = "2.0"},
      {.action = TS_SYNC_CHANGE, .name = "b", .old_version = "2.0", .new_version = "1.0"},
      {.action = TS_SYNC_CHANGE, .name = "c", .old_version = "1.0", .new_version = "1.0"},
      {.action = TS_SYNC_CHANGE, .name = "d", .old_version = "x y", .new_version = "1.0"},
      {.action = TS_SYNC_REMOVE, .name = "e", .old_version = "3.0"},
      {.action = TS_SYNC_KEEP, .name = "f", .old_version = "1.0", .new_version = "1.0"},
  };
  struct ts_sync_plan plan = {.items = items, .n = sizeof items / sizeof items[0]};
  struct ts_plan_notes lines = {0};
  ts_plan_sync_dry_run_lines(&plan, &lines);
  cr_assert_eq(lines.n, 6);
  cr_assert_str_eq(lines.lines[0], "upgrade a 2.0 - - (was 1.0)");
  cr_assert_str_eq(lines.lines[1], "downgrade b 1.0 - - (was 2.0)");
  cr_assert_str_eq(lines.lines[2], "reinstall c 1.0 - - (was 1.0)");
  cr_assert_str_eq(lines.lines[3], "change d 1.0 - - (was x y)");
  cr_assert_str_eq(lines.lines[4], "remove e 3.0 - -");
  cr_assert_str_eq(lines.lines[5], "keep f 1.0 - -");
  ts_plan_notes_clear(&lines);
}
