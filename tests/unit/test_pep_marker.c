/* Unit tests for PEP 508 markers: parsing, printing, evaluation. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pep/requirement.h"

static const struct ts_marker_env linux312 = {
    .implementation_name = "cpython",
    .implementation_version = "3.12.3",
    .os_name = "posix",
    .platform_machine = "x86_64",
    .platform_python_implementation = "CPython",
    .platform_release = "6.1.0-13-amd64",
    .platform_system = "Linux",
    .platform_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1",
    .python_full_version = "3.12.3",
    .python_version = "3.12",
    .sys_platform = "linux",
};

static struct ts_marker *M(const char *s) {
  struct ts_marker *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_marker_parse(s, strlen(s), &m, &err), TS_OK,
               "'%s' should parse: %s", s, err.detail);
  return m;
}

static bool E(const char *s, const char *extra) {
  struct ts_marker *m = M(s);
  bool r = ts_marker_eval(m, &linux312, extra);
  ts_marker_free(m);
  return r;
}

Test(marker, every_variable) {
  cr_expect(E("implementation_name == 'cpython'", NULL));
  cr_expect(E("implementation_version >= '3.12'", NULL));
  cr_expect(E("os_name == 'posix'", NULL));
  cr_expect(E("platform_machine == 'x86_64'", NULL));
  cr_expect(E("platform_python_implementation == 'CPython'", NULL));
  /* "6.1.0-13-amd64" is no PEP 440 version: a version operator is false. */
  cr_expect(!E("platform_release >= '6'", NULL));
  cr_expect(E("platform_release == '6.1.0-13-amd64'", NULL));
  cr_expect(E("'Debian' in platform_version", NULL));
  cr_expect(E("platform_system == 'Linux'", NULL));
  cr_expect(E("python_full_version >= '3.12.1'", NULL));
  cr_expect(E("python_version < '3.13'", NULL));
  cr_expect(E("python_version > '3.9'", NULL), "version, not string, order");
  cr_expect(E("sys_platform == 'linux'", NULL));
  cr_expect(E("extra == 'gpu'", "GPU"));
  cr_expect(!E("extra == 'gpu'", NULL));
}

Test(marker, precedence_and_grouping) {
  cr_expect(E("os_name == 'nt' and python_version < '3' or sys_platform == 'linux'", NULL));
  cr_expect(!E("os_name == 'nt' and (python_version < '3' or sys_platform == 'linux')", NULL));
  cr_expect(E("sys_platform == 'linux' or os_name == 'nt' and python_version < '3'", NULL));
  struct ts_marker *m = M("((os_name == 'nt' or os_name == 'posix')) and extra == 'A_B'");
  cr_expect_str_eq(ts_marker_str(m),
                   "(os_name == \"nt\" or os_name == \"posix\") and extra == \"a-b\"");
  cr_expect(ts_marker_eval(m, &linux312, "a.b"));
  struct ts_marker *d = ts_marker_dup(m);
  cr_expect_str_eq(ts_marker_str(d), ts_marker_str(m));
  ts_marker_free(d);
  ts_marker_free(m);
}

Test(marker, strings_versions_and_in) {
  cr_expect(E("'x86' in platform_machine", NULL));
  cr_expect(E("'arm' not in platform_machine", NULL));
  cr_expect(!E("platform_machine < 'z'", NULL), "< on strings is false");
  cr_expect(E("platform_machine <= 'x86_64'", NULL), "<= on strings is ==");
  cr_expect(E("python_version == '3.12.*'", NULL));
  cr_expect(E("python_full_version ~= '3.12.0'", NULL));
  cr_expect(E("'3.8' < python_version", NULL), "variable on the right");
  cr_expect(E("python_version != '3.12'", NULL) == false);
}

Test(marker, undefined_comparisons) {
  struct ts_marker *m = M("os_name ~= 'posix'");
  bool r = true;
  struct ts_error err = {0};
  cr_expect_eq(ts_marker_evaluate(m, &linux312, NULL, &r, &err), TS_E_INVALID);
  cr_expect(strstr(err.detail, "undefined comparison") != NULL, "%s", err.detail);
  cr_expect(!ts_marker_eval(m, &linux312, NULL));
  ts_marker_free(m);
  m = M("'foo' in extras");
  cr_expect_eq(ts_marker_evaluate(m, &linux312, NULL, &r, &err), TS_E_INVALID);
  struct ts_marker_eval_opts lock = {TS_MARKER_LOCK_FILE, NULL, NULL, 0, NULL, 0};
  cr_expect_eq(ts_marker_evaluate(m, &linux312, &lock, &r, &err), TS_OK);
  cr_expect(!r);
  const char *ex[] = {"Foo"};
  lock.extras = ex;
  lock.nextras = 1;
  cr_expect_eq(ts_marker_evaluate(m, &linux312, &lock, &r, &err), TS_OK);
  cr_expect(r);
  ts_marker_free(m);
  m = M("extra == 'x'");
  struct ts_marker_eval_opts req = {TS_MARKER_REQUIREMENT, NULL, NULL, 0, NULL, 0};
  cr_expect_eq(ts_marker_evaluate(m, &linux312, &req, &r, &err), TS_E_INVALID);
  ts_marker_free(m);
}

Test(marker, null_env_fields_compare_as_empty) {
  struct ts_marker_env e = {0};
  struct ts_marker *m = M("os_name == ''");
  cr_expect(ts_marker_eval(m, &e, NULL));
  cr_expect(ts_marker_eval(m, NULL, NULL));
  ts_marker_free(m);
}

Test(marker, python_full_version_plus_repaired) {
  struct ts_marker_env e = linux312;
  e.python_full_version = "3.13.1+";
  struct ts_marker *m = M("python_full_version >= '3.13'");
  cr_expect(ts_marker_eval(m, &e, NULL));
  ts_marker_free(m);
}

Test(marker, quoted_strings) {
  struct ts_marker *m = M("os_name == 'a\\tb'");
  cr_expect_str_eq(ts_marker_str(m), "os_name == \"a\tb\"");
  ts_marker_free(m);
  m = M("os_name == \"it's\"");
  cr_expect_str_eq(ts_marker_str(m), "os_name == \"it's\"");
  ts_marker_free(m);
  m = M("os_name == 'say \"hi\"'");
  cr_expect_str_eq(ts_marker_str(m), "os_name == 'say \"hi\"'");
  ts_marker_free(m);
  struct ts_marker *bad = NULL;
  struct ts_error err = {0};
  cr_expect_eq(ts_marker_parse("os_name == '\\x0'", 16, &bad, &err), TS_E_PARSE);
  cr_expect_eq(ts_marker_parse("os_name == 'C:\\'", 16, &bad, &err), TS_E_PARSE);
  cr_expect_eq(ts_marker_parse("os_name == '\\x00'", 17, &bad, &err), TS_E_PARSE,
               "NUL via escape");
}

Test(marker, hostile) {
  struct ts_error err = {0};
  struct ts_marker *m = NULL;
  /* 10,000 nested parentheses: refused, no stack overflow. */
  size_t depth = 10000, o = 0;
  char *s = malloc(depth * 2 + 32);
  for (size_t i = 0; i < depth; i++)
    s[o++] = '(';
  memcpy(s + o, "os_name == 'a'", 14);
  o += 14;
  for (size_t i = 0; i < depth; i++)
    s[o++] = ')';
  cr_expect_eq(ts_marker_parse(s, o, &m, &err), TS_E_TOO_BIG);
  cr_expect_null(m);
  /* Within the cap it parses and evaluates. */
  o = 0;
  for (size_t i = 0; i < 50; i++)
    s[o++] = '(';
  memcpy(s + o, "os_name == 'posix'", 18);
  o += 18;
  for (size_t i = 0; i < 50; i++)
    s[o++] = ')';
  cr_assert_eq(ts_marker_parse(s, o, &m, &err), TS_OK, "%s", err.detail);
  cr_expect(ts_marker_eval(m, &linux312, NULL));
  ts_marker_free(m);
  free(s);
  /* A long flat chain is iterative, not recursive. */
  size_t n = 3000;
  s = malloc(n * 24 + 1);
  o = 0;
  for (size_t i = 0; i < n; i++) {
    memcpy(s + o, i ? " or os_name == 'x'" : "os_name == 'x'", i ? 18 : 14);
    o += i ? 18 : 14;
  }
  cr_assert_eq(ts_marker_parse(s, o, &m, &err), TS_OK, "%s", err.detail);
  cr_expect(!ts_marker_eval(m, &linux312, NULL));
  ts_marker_free(m);
  free(s);
  cr_expect_eq(ts_marker_parse("os_name == 'a'\0", 15, &m, &err), TS_E_PARSE);
  cr_expect_eq(ts_marker_parse("os_name == '\xff'", 14, &m, &err), TS_E_PARSE);
  cr_expect_eq(ts_marker_parse("os_name == 'a' and", 18, &m, &err), TS_E_PARSE);
  cr_expect(strstr(err.detail, "position 18") != NULL, "%s", err.detail);
}

Test(marker, decide_sets_leaves_the_environment_part) {
  static const char *const extras[] = {"x"}, *const groups[] = {"test"};
  struct ts_marker_eval_opts o = {.extras = extras, .nextras = 1,
                                  .dependency_groups = groups, .ngroups = 1};
  static const struct {
    const char *m;
    bool holds;
    const char *rest; /* NULL: holds everywhere (or nowhere) */
  } cases[] = {
      {"'x' in extras", true, NULL},
      {"'y' in extras", false, NULL},
      {"'y' not in extras", true, NULL},
      {"sys_platform == 'linux' and 'x' in extras", true, "sys_platform == \"linux\""},
      {"sys_platform == 'linux' and 'y' in extras", false, NULL},
      {"'y' in extras or sys_platform == 'win32'", true, "sys_platform == \"win32\""},
      {"'x' in extras or sys_platform == 'win32'", true, NULL},
      {"'test' in dependency_groups and python_version >= '3.9'", true,
       "python_version >= \"3.9\""},
      {"'lint' in dependency_groups", false, NULL},
      {"sys_platform == 'linux' and 'x' in extras or os_name == 'nt' and 'y' in extras", true,
       "sys_platform == \"linux\""},
      {"(sys_platform == 'linux' or os_name == 'nt') and 'x' in extras", true,
       "sys_platform == \"linux\" or os_name == \"nt\""},
      {"(sys_platform == 'linux' or os_name == 'nt') and python_version < '3.13' and "
       "'x' in extras", true,
       "(sys_platform == \"linux\" or os_name == \"nt\") and python_version < \"3.13\""},
      {"os_name == 'nt' and 'x' in extras or sys_platform == 'linux' and 'test' in "
       "dependency_groups", true, "os_name == \"nt\" or sys_platform == \"linux\""},
      {"((os_name == 'nt' or sys_platform == 'linux') and 'y' in extras) or "
       "platform_machine == 'arm64'", true, "platform_machine == \"arm64\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ts_marker *m = M(cases[i].m);
    struct ts_error err = {0};
    bool holds = !cases[i].holds;
    char *rest = (char *)"unset";
    cr_assert_eq(ts_marker_decide_sets(m, &o, &holds, &rest, &err), TS_OK, "%s: %s",
                 cases[i].m, err.detail);
    cr_expect_eq(holds, cases[i].holds, "%s", cases[i].m);
    if (cases[i].rest) {
      cr_expect(rest && strcmp(rest, cases[i].rest) == 0, "%s: '%s'", cases[i].m,
                rest ? rest : "(null)");
      struct ts_marker *back = NULL;
      cr_expect_eq(ts_marker_parse(rest, strlen(rest), &back, &err), TS_OK, "%s", rest);
      ts_marker_free(back);
    } else {
      cr_expect_null(rest, "%s: '%s'", cases[i].m, rest);
    }
    free(rest);
    ts_marker_free(m);
  }
}

/* PEP 825: variant_label is a string, variant_properties / _features /
 * _namespaces are sets tested with `in`, empty for a plain wheel. */
static bool variant_eval(const char *text, const struct ts_marker_env *env) {
  struct ts_marker *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_marker_parse(text, strlen(text), &m, &err), TS_OK, "%s: %s", text, err.detail);
  bool r = ts_marker_eval(m, env, NULL);
  ts_marker_free(m);
  return r;
}

Test(marker, pep825_variant_markers) {
  const char *props[] = {"nvidia :: sm_arch :: 90_real", "nvidia :: cuda_version_lower_bound :: 12.0"};
  struct ts_marker_env v = {.variant_label = "cuda12.8", .variant_properties = props,
                            .nvariant_properties = 2};
  struct ts_marker_env plain = {0};
  cr_assert(variant_eval("variant_label == 'cuda12.8'", &v));
  cr_assert(!variant_eval("variant_label == 'cuda12.8'", &plain));
  cr_assert(variant_eval("variant_label == ''", &plain));
  cr_assert(variant_eval("'nvidia :: sm_arch :: 90_real' in variant_properties", &v));
  cr_assert(!variant_eval("'nvidia :: sm_arch :: 9' in variant_properties", &v));
  cr_assert(variant_eval("'nvidia :: sm_arch' in variant_features", &v));
  cr_assert(!variant_eval("'nvidia' in variant_features", &v));
  cr_assert(variant_eval("'nvidia' in variant_namespaces", &v));
  cr_assert(!variant_eval("'nvidia :: sm_arch' in variant_namespaces", &v));
  cr_assert(variant_eval("'amd' not in variant_namespaces", &v));
  cr_assert(!variant_eval("'nvidia' in variant_namespaces", &plain));
}
