/* Unit tests for target/pyfiles.h: the strict readers of pyvenv.cfg,
 * _sysconfigdata_*.py, patchlevel.h and ELF headers, with the shapes real
 * tools write and malformed inputs that must be refused. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/pyfiles.h"

static enum ts_code cfg(const char *text, struct ts_pyvenv_cfg *c)
{
  struct ts_error err = {0};
  return ts_pyvenv_cfg_parse(text, strlen(text), c, &err);
}

Test(pyvenv_cfg, what_venv_virtualenv_and_uv_write)
{
  struct ts_pyvenv_cfg c;
  cr_assert_eq(cfg("home = /root/.pyenv/versions/3.11.7/bin\n"
                   "include-system-site-packages = false\n"
                   "version = 3.11.7\n"
                   "executable = /root/.pyenv/versions/3.11.7/bin/python3.11\n"
                   "command = /root/.pyenv/versions/3.11.7/bin/python3 -m venv /tmp/v\n",
                   &c),
               TS_OK);
  cr_assert_str_eq(c.home, "/root/.pyenv/versions/3.11.7/bin");
  cr_assert_eq(c.major, 3);
  cr_assert_eq(c.minor, 11);
  cr_assert_eq(c.micro, 7);
  cr_assert_not(c.system_site);
  ts_pyvenv_cfg_clear(&c);
  /* virtualenv: version_info with the release level, and both keys */
  cr_assert_eq(cfg("home = /usr/bin\nimplementation = CPython\nversion_info = 3.13.0.candidate.1\n"
                   "virtualenv = 20.25.0\ninclude-system-site-packages = true\n"
                   "base-prefix = /usr\n\n",
                   &c),
               TS_OK);
  cr_assert_eq(c.minor, 13);
  cr_assert(c.system_site);
  ts_pyvenv_cfg_clear(&c);
  cr_assert_eq(cfg("home = /x/bin\nversion = 3.12.1\nversion_info = 3.12.1.final.0\n", &c), TS_OK);
  ts_pyvenv_cfg_clear(&c);
}

Test(pyvenv_cfg, malformed_is_refused)
{
  static const char *const bad[] = {
      "home = /x/bin\nversion = 3.12.1",             /* last line unterminated */
      "home=/x/bin\nversion = 3.12.1\n",             /* 3.8's reader needs " = " */
      "home = /x/bin\nhome = /y/bin\nversion = 3.12.1\n", /* repeated key */
      "home = /x/bin \nversion = 3.12.1\n",          /* trailing blank */
      "home = /x/bin\r\nversion = 3.12.1\r\n",       /* CRLF */
      "Home = /x/bin\nversion = 3.12.1\n",           /* 3.8 compares case */
      "version = 3.12.1\n",                          /* no home */
      "home = /x/bin\n",                             /* no version */
      "home = /x/bin\nversion = 3.12\n",             /* no micro */
      "home = /x/bin\nversion = 3.13.0rc1\n",        /* not what venv writes */
      "home = /x/bin\nversion = 3.12.1\nversion_info = 3.12.2\n", /* disagree */
      "home = /x/bin\nversion = 3.12.1\ninclude-system-site-packages = yes\n",
      "garbage\nhome = /x/bin\nversion = 3.12.1\n",
      "# comment\nhome = /x/bin\nversion = 3.12.1\n",
      "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_pyvenv_cfg c;
    struct ts_error err = {0};
    cr_expect_eq(ts_pyvenv_cfg_parse(bad[i], strlen(bad[i]), &c, &err), TS_E_UNSUPPORTED,
                 "accepted: %s", bad[i]);
    cr_expect_null(c.home);
    cr_expect(err.detail[0], "no reason for: %s", bad[i]);
  }
}

static const char pprint_layout[] =
    "# system configuration generated and used by the sysconfig module\n"
    "build_time_vars = {'ABIFLAGS': '',\n"
    " 'AR': 'x86_64-linux-gnu-gcc-ar',\n"
    " 'CFLAGS': '-Wsign-compare -DNDEBUG -g -fwrapv -O3 -Wall '\n"
    "           \"-fno-strict-overflow 'quoted'\"\n"
    "           '-fstack-protector-strong',\n"
    " 'EXT_SUFFIX': '.cpython-311-x86_64-linux-gnu.so',\n"
    " 'HAVE_FORK': 1,\n"
    " 'MULTIARCH': 'x86_64-linux-gnu',\n"
    " 'PLATLIBDIR': 'lib',\n"
    " 'Py_DEBUG': 0,\n"
    " 'Py_ENABLE_SHARED': 1,\n"
    " 'VERSION': '3.11',\n"
    " 'exec_prefix': '/usr',\n"
    " 'prefix': '/usr',\n"
    " 'srcdir': '.'}\n";

static const char layout_313[] =
    "# system configuration generated and used by the sysconfig module\n"
    "build_time_vars = {\n"
    "    'ABIFLAGS': '',\n"
    "    'ABI_THREAD': '',\n"
    "    'EXT_SUFFIX': '.cpython-313-x86_64-linux-gnu.so',\n"
    "    'MULTIARCH': 'x86_64-linux-gnu',\n"
    "    'PLATLIBDIR': 'lib',\n"
    "    'Py_GIL_DISABLED': 0,\n"
    "    'VERSION': '3.13',\n"
    "    'srcdir': '.',\n"
    "}\n";

static enum ts_code scan(const char *text, struct ts_sysconfigdata *d, struct ts_error *err)
{
  return ts_sysconfigdata_scan(text, strlen(text), d, err);
}

Test(sysconfigdata, both_generated_layouts)
{
  struct ts_sysconfigdata d;
  struct ts_error err = {0};
  cr_assert_eq(scan(pprint_layout, &d, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(d.abiflags, "");
  cr_assert_str_eq(d.ext_suffix, ".cpython-311-x86_64-linux-gnu.so");
  cr_assert_str_eq(d.multiarch, "x86_64-linux-gnu");
  cr_assert_str_eq(d.platlibdir, "lib");
  cr_assert_str_eq(d.version, "3.11");
  cr_assert_eq(d.debug, 0);
  ts_sysconfigdata_clear(&d);
  cr_assert_eq(scan(layout_313, &d, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(d.version, "3.13");
  cr_assert_eq(d.gil_disabled, 0);
  ts_sysconfigdata_clear(&d);
}

/* pprint_layout with `from` replaced by `to`, which must be refused. */
static void refused(const char *base, const char *from, const char *to)
{
  const char *at = strstr(base, from);
  cr_assert_not_null(at, "%s", from);
  char *text = NULL;
  cr_assert_neq(asprintf(&text, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from)), -1);
  struct ts_sysconfigdata d;
  struct ts_error err = {0};
  cr_expect_eq(scan(text, &d, &err), TS_E_UNSUPPORTED, "accepted: %s", text);
  cr_expect_null(d.version);
  cr_expect(err.detail[0]);
  free(text);
}

Test(sysconfigdata, malformed_is_refused)
{
  refused(pprint_layout, "# system", "# System");
  refused(pprint_layout, " 'AR'", " 'VERSION': '3.12',\n 'AR'");       /* repeated */
  refused(pprint_layout, " 'AR'", " 'base': '/elsewhere',\n 'AR'");    /* scheme var */
  refused(pprint_layout, " 'AR'", " 'platlibdir': 'lib64',\n 'AR'");
  refused(pprint_layout, "'.cpython-311-x86_64-linux-gnu.so',",
          "'.cpython-311-'\n               'x86_64-linux-gnu.so',");        /* split value */
  refused(pprint_layout, "'MULTIARCH': 'x86_64-linux-gnu'", "'MULTIARCH': 'x86\\x5f64'");
  refused(pprint_layout, "'VERSION': '3.11'", "'VERSION': 3.11");
  refused(pprint_layout, " 'srcdir': '.'}\n", " 'srcdir': '.'}\nbuild_time_vars['X'] = 1\n");
  refused(pprint_layout, " 'srcdir': '.'}\n", " 'srcdir': '.',\n");     /* no closing brace */
  refused(pprint_layout, " 'AR'", "import os\n 'AR'");
  refused(pprint_layout, " 'EXT_SUFFIX': '.cpython-311-x86_64-linux-gnu.so',\n", "");
  refused(layout_313, "}\n", "}\nprint(1)\n");
  refused(layout_313, "    'ABI_THREAD'", "\n    'ABI_THREAD'");          /* blank line */
  refused(layout_313, "'Py_GIL_DISABLED': 0", "'Py_GIL_DISABLED': True");
}

static enum ts_code patchlevel(const char *text, char out[32])
{
  struct ts_error err = {0};
  return ts_patchlevel_version(text, strlen(text), out, &err);
}

Test(patchlevel, py_version)
{
  char v[32];
  cr_assert_eq(patchlevel("#define PY_MAJOR_VERSION        3\n"
                          "#define PY_RELEASE_LEVEL        PY_RELEASE_LEVEL_FINAL\n"
                          "/* Version as a string */\n"
                          "#define PY_VERSION              \"3.12.1\"\n"
                          "/*--end constants--*/\n",
                          v),
               TS_OK);
  cr_assert_str_eq(v, "3.12.1");
  cr_assert_eq(patchlevel("#define PY_VERSION \"3.13.0rc1\"\n", v), TS_OK);
  cr_assert_str_eq(v, "3.13.0rc1");
  cr_assert_eq(patchlevel("#define PY_VERSION \"3.14.0a7\"", v), TS_OK);
  cr_assert_str_eq(v, "3.14.0a7");
  static const char *const bad[] = {
      "#define PY_VERSION \"3.12.1+\"\n",
      "#define PY_VERSION \"3.12\"\n",
      "#define PY_VERSION \"3.12.1\"\n#define PY_VERSION \"3.12.2\"\n",
      "#define PY_VERSION_HEX 0x030c01f0\n",
      "#define PY_VERSION 3.12.1\n",
      "#define PY_VERSION \"3.12.1c1\"\n",
      "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_expect_eq(patchlevel(bad[i], v), TS_E_UNSUPPORTED, "accepted: %s", bad[i]);
    cr_expect_str_eq(v, "");
  }
}

Test(elf, own_executable_and_non_elf_files)
{
  struct ts_elf_facts f;
  struct ts_error err = {0};
  cr_assert_eq(ts_elf_read_facts("/proc/self/exe", &f, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(f.elf_class, 2 /* ELFCLASS64 */);
  cr_assert(strstr(f.interp, "ld-"), "interp '%s'", f.interp);

  char dir[] = "/tmp/ts-pyfiles-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/script", dir);
  FILE *fp = fopen(path, "w");
  fputs("#!/bin/sh\necho python\n", fp);
  fclose(fp);
  cr_expect_eq(ts_elf_read_facts(path, &f, &err), TS_E_UNSUPPORTED);
  /* an ELF header cut short */
  fp = fopen(path, "w");
  fwrite("\x7f" "ELF\x02\x01\x01", 1, 7, fp);
  fclose(fp);
  cr_expect_eq(ts_elf_read_facts(path, &f, &err), TS_E_UNSUPPORTED);
  unlink(path);
  rmdir(dir);
  cr_expect_eq(ts_elf_read_facts("/nonexistent/python", &f, &err), TS_E_IO);
}
